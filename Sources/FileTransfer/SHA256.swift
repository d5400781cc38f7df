import COpenSSL

/// Incremental SHA-256 (OpenSSL EVP): fed while sending and while receiving,
/// so verifying a file costs no second read. `copy` forks the state, which
/// the receiver uses to keep the prefix hash it proves on resume.
public final class SHA256 {
    private let context: OpaquePointer

    public init() {
        // EVP_MD_CTX_new only fails out of memory, where nothing else would work either.
        guard let context = EVP_MD_CTX_new() else { fatalError("OpenSSL cannot allocate a digest context") }
        self.context = context
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
    }

    private init(copying other: SHA256) {
        guard let context = EVP_MD_CTX_new() else { fatalError("OpenSSL cannot allocate a digest context") }
        self.context = context
        EVP_MD_CTX_copy_ex(context, other.context)
    }

    deinit { EVP_MD_CTX_free(context) }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    public func update<C: ContiguousCollection>(_ bytes: C) where C.Element == UInt8 {
        bytes.withContiguousStorage { update(UnsafeRawBufferPointer($0)) }
    }

    public func copy() -> SHA256 { SHA256(copying: self) }

    /// The digest of everything fed so far (the state itself is left as it is).
    public func digest() -> [UInt8] {
        let fork = copy()
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        out.withUnsafeMutableBufferPointer { _ = EVP_DigestFinal_ex(fork.context, $0.baseAddress, &length) }
        return out
    }

    public static func hash<C: ContiguousCollection>(_ bytes: C) -> [UInt8] where C.Element == UInt8 {
        let h = SHA256()
        h.update(bytes)
        return h.digest()
    }
}

/// The collections whose bytes can be hashed in place.
public protocol ContiguousCollection: Collection {
    func withContiguousStorage<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R
}

extension Array: ContiguousCollection {
    public func withContiguousStorage<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R { try withUnsafeBufferPointer(body) }
}

extension ArraySlice: ContiguousCollection {
    public func withContiguousStorage<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R { try withUnsafeBufferPointer(body) }
}

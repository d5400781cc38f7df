import CSodium

/// A buffer for secrets (passphrases, keys) that never becomes a `String` or an
/// `Array`: its memory is locked out of swap when the system allows it
/// (`sodium_mlock`) and overwritten with zeros (`sodium_memzero`) as soon as
/// the value dies, or earlier with ``wipe()``.
///
/// Not `Sendable` on purpose: a secret stays with the code that asked for it.
public final class SecureBytes {
    private let storage: UnsafeMutableRawBufferPointer
    /// Never nil: the allocation is at least one byte.
    private let base: UnsafeMutableRawPointer
    /// The number of meaningful bytes (the allocation may be larger).
    public private(set) var count: Int
    private let locked: Bool

    /// Called by `deinit` after zeroing, with a view of the storage just before
    /// it is released. Tests use it to prove that the bytes really are zero.
    var onWipe: ((UnsafeRawBufferPointer) -> Void)?

    /// A zero-filled secret of `capacity` bytes whose `count` starts at `count`.
    public init(count: Int, capacity: Int? = nil) {
        Sodium.initialize()
        let size = max(1, max(count, capacity ?? count))
        base = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        storage = UnsafeMutableRawBufferPointer(start: base, count: size)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        self.count = max(0, count)
        // mlock can fail (RLIMIT_MEMLOCK); the secret is still zeroed then.
        locked = sodium_mlock(base, size) == 0
    }

    /// Copies `bytes` in. The caller should wipe its own copy where it can.
    public convenience init<C: Collection>(copying bytes: C) where C.Element == UInt8 {
        self.init(count: bytes.count)
        storage.copyBytes(from: bytes)
    }

    /// Copies a C buffer in (for example the result of `getenv`) without going
    /// through a Swift `String`.
    public convenience init(copying pointer: UnsafeRawPointer, count: Int) {
        self.init(count: count)
        if count > 0 { base.copyMemory(from: pointer, byteCount: count) }
    }

    deinit {
        wipe()
        onWipe?(UnsafeRawBufferPointer(storage))
        if locked { _ = sodium_munlock(base, storage.count) }
        base.deallocate()
    }

    /// Overwrites every byte with zero and sets `count` to 0.
    public func wipe() {
        sodium_memzero(base, storage.count)
        count = 0
    }

    /// The allocated size; `append` beyond it fails.
    public var capacity: Int { storage.count }

    /// Appends one byte; returns false when the buffer is full.
    @discardableResult
    public func append(_ byte: UInt8) -> Bool {
        guard count < storage.count else { return false }
        storage[count] = byte
        count += 1
        return true
    }

    /// Removes the last byte (for backspace), zeroing it.
    public func removeLast() {
        guard count > 0 else { return }
        count -= 1
        storage[count] = 0
    }

    /// Shortens to `newCount` bytes, zeroing what is cut off.
    public func truncate(to newCount: Int) {
        while count > max(0, newCount) { removeLast() }
    }

    public var isEmpty: Bool { count == 0 }

    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    public func withUnsafeMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeMutableRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// The bytes as a C pointer that is never nil (libsodium's parameters are
    /// non-optional), with the meaningful count.
    func withPointer<R, E: Error>(_ body: (UnsafeMutablePointer<UInt8>, Int) throws(E) -> R) throws(E) -> R {
        try body(base.assumingMemoryBound(to: UInt8.self), count)
    }

    /// Constant-time comparison (`sodium_memcmp`), for "type it again" checks.
    public func constantTimeEquals(_ other: SecureBytes) -> Bool {
        guard count == other.count else { return false }
        if count == 0 { return true }
        return withPointer { a, n in other.withPointer { b, _ in sodium_memcmp(a, b, n) == 0 } }
    }
}

/// One-time libsodium initialisation (`sodium_init` is itself idempotent and
/// thread-safe; the static `let` just keeps it to one call).
enum Sodium {
    private static let status: Int32 = sodium_init()
    /// Returns false only if libsodium could not initialise (no entropy source).
    @discardableResult
    static func initialize() -> Bool { status >= 0 }
}

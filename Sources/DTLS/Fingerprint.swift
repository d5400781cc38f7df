import COpenSSL

/// A certificate fingerprint as carried in SDP (`a=fingerprint:sha-256 AB:CD:…`,
/// RFC 8122 §5): a hash function name and the digest of the DER certificate.
///
/// Parsing accepts upper- or lowercase hex and any run of spaces or tabs between
/// the two fields; printing is always the canonical uppercase, colon-separated form.
public struct Fingerprint: Sendable, Hashable, CustomStringConvertible {
    /// Lowercase hash function name from the IANA "Hash Function Textual Names"
    /// registry, e.g. `sha-256`.
    public let algorithm: String
    public let bytes: [UInt8]

    public init(algorithm: String, bytes: [UInt8]) {
        self.algorithm = algorithm.lowercased()
        self.bytes = bytes
    }

    /// Parses the attribute value `sha-256 AB:CD:…` (without `a=fingerprint:`).
    public init?(sdpValue: String) {
        let fields = sdpValue.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" })
        guard fields.count == 2 else { return nil }
        let algorithm = fields[0].lowercased()
        guard let bytes = Fingerprint.parseHexPairs(fields[1]) else { return nil }
        if let expected = Fingerprint.digestLength(algorithm), expected != bytes.count { return nil }
        self.init(algorithm: algorithm, bytes: bytes)
    }

    /// `AB:CD:…`, the form SDP uses after the algorithm name.
    public var hexValue: String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 3)
        for (i, b) in bytes.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ":")) }
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The attribute value, `sha-256 AB:CD:…`.
    public var sdpValue: String { "\(algorithm) \(hexValue)" }
    public var description: String { sdpValue }

    /// Compares digests in time independent of where they differ (CRYPTO_memcmp),
    /// so a peer probing fingerprints learns nothing from timing.
    public func matches(_ other: Fingerprint) -> Bool {
        guard algorithm == other.algorithm, bytes.count == other.bytes.count, !bytes.isEmpty else { return false }
        return bytes.withUnsafeBytes { a in
            other.bytes.withUnsafeBytes { b in
                CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0
            }
        }
    }

    /// Digest sizes of the names RFC 8122 allows; nil for names we do not know
    /// (kept, so an unknown extra fingerprint in SDP does not reject the whole line).
    static func digestLength(_ algorithm: String) -> Int? {
        switch algorithm {
        case "md2", "md5": return 16
        case "sha-1": return 20
        case "sha-224": return 28
        case "sha-256": return 32
        case "sha-384": return 48
        case "sha-512": return 64
        default: return nil
        }
    }

    /// OpenSSL's digest for an SDP hash name (`sha-256` → SHA256); nil for names
    /// we refuse to verify with (md2, md5 and unknown ones).
    static func digest(for algorithm: String) -> OpaquePointer? {
        switch algorithm {
        case "sha-1": return EVP_sha1()
        case "sha-224": return EVP_sha224()
        case "sha-256": return EVP_sha256()
        case "sha-384": return EVP_sha384()
        case "sha-512": return EVP_sha512()
        default: return nil
        }
    }

    private static func parseHexPairs(_ text: Substring) -> [UInt8]? {
        var out: [UInt8] = []
        for pair in text.split(separator: ":", omittingEmptySubsequences: false) {
            let utf8 = Array(pair.utf8)
            guard utf8.count == 2, let hi = nibble(utf8[0]), let lo = nibble(utf8[1]) else { return nil }
            out.append(hi << 4 | lo)
        }
        return out.isEmpty ? nil : out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

extension Fingerprint {
    /// Digest of a certificate with the named algorithm; nil if the algorithm is
    /// not one we verify with or OpenSSL fails.
    static func of(certificate x509: OpaquePointer, algorithm: String) -> Fingerprint? {
        guard let md = digest(for: algorithm) else { return nil }
        var buffer = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = buffer.withUnsafeMutableBufferPointer { X509_digest(x509, md, $0.baseAddress, &length) }
        guard ok == 1, length > 0, Int(length) <= buffer.count else { return nil }
        return Fingerprint(algorithm: algorithm, bytes: Array(buffer[0..<Int(length)]))
    }
}

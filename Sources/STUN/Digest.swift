import COpenSSL

/// The OpenSSL primitives STUN needs: HMAC-SHA1/SHA256 for message
/// integrity and MD5/SHA-256 for long-term keys (RFC 8489 §9.2.2).
enum Digest {
    enum Algorithm {
        case sha1, sha256, md5

        var evp: OpaquePointer? {
            switch self {
            case .sha1: EVP_sha1()
            case .sha256: EVP_sha256()
            case .md5: EVP_md5()
            }
        }

        var length: Int {
            switch self {
            case .sha1: 20
            case .sha256: 32
            case .md5: 16
            }
        }
    }

    /// `nil` only if OpenSSL itself fails (e.g. MD5 disabled by a FIPS policy).
    static func hmac(_ algorithm: Algorithm, key: [UInt8], data: [UInt8]) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: 64)
        var outLength: UInt32 = 0
        // OpenSSL wants a non-NULL key pointer even for an empty key, which
        // an empty Swift array may not provide.
        let keyBytes = key.isEmpty ? [0] : key
        let ok = keyBytes.withUnsafeBytes { keyBuffer in
            data.withUnsafeBufferPointer { dataBuffer in
                out.withUnsafeMutableBufferPointer { outBuffer in
                    HMAC(algorithm.evp, keyBuffer.baseAddress, Int32(clamping: key.count),
                         dataBuffer.baseAddress, dataBuffer.count, outBuffer.baseAddress, &outLength) != nil
                }
            }
        }
        guard ok, Int(outLength) == algorithm.length else { return nil }
        return Array(out.prefix(Int(outLength)))
    }

    static func hash(_ algorithm: Algorithm, _ data: [UInt8]) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: 64)
        var outLength: UInt32 = 0
        let ok = data.withUnsafeBytes { dataBuffer in
            out.withUnsafeMutableBufferPointer { outBuffer in
                EVP_Digest(dataBuffer.baseAddress, dataBuffer.count, outBuffer.baseAddress, &outLength, algorithm.evp, nil) == 1
            }
        }
        guard ok, Int(outLength) == algorithm.length else { return nil }
        return Array(out.prefix(Int(outLength)))
    }

    /// Compares MACs without leaking through timing where they differ.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

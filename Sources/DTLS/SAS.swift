import COpenSSL

/// The short authentication string two users compare out of band to rule out a
/// man in the middle who swapped DTLS fingerprints on the signaling path.
///
/// Both sides hash the same two fingerprints in the same order (sorted
/// bytewise, so "local" and "remote" do not matter), so an honest pair sees the
/// same words; an attacker holding two different certificates would have to
/// find a collision on the first 40 bits of SHA-256 between independent sessions.
public enum SAS {
    /// Separates this hash from any other use of SHA-256 over fingerprints.
    static let label = Array("chatcli SAS v1".utf8)

    /// Five words (40 bits), e.g. `"otter maple radio cube walnut"`.
    public static func words(localFingerprint: Fingerprint, remoteFingerprint: Fingerprint) -> String {
        let digest = self.digest(localFingerprint, remoteFingerprint)
        return digest.prefix(5).map { words[Int($0)] }.joined(separator: " ")
    }

    /// Six decimal digits from the same hash (independent bits), for
    /// users who would rather read numbers, e.g. `"042 917"`.
    public static func digits(localFingerprint: Fingerprint, remoteFingerprint: Fingerprint) -> String {
        let digest = self.digest(localFingerprint, remoteFingerprint)
        var value: UInt32 = 0
        for b in digest[8..<12] { value = value << 8 | UInt32(b) }
        let n = Int(value % 1_000_000)
        let text = String(n)
        let padded = String(repeating: "0", count: 6 - text.count) + text
        return "\(padded.prefix(3)) \(padded.suffix(3))"
    }

    /// SHA-256(label ‖ len ‖ alg ‖ len ‖ bytes for the smaller fingerprint, then the larger).
    static func digest(_ a: Fingerprint, _ b: Fingerprint) -> [UInt8] {
        let ea = encode(a), eb = encode(b)
        let ordered = ea.lexicographicallyPrecedes(eb) ? [ea, eb] : [eb, ea]
        let input = label + ordered[0] + ordered[1]
        var out = [UInt8](repeating: 0, count: 32)
        input.withUnsafeBufferPointer { inp in
            out.withUnsafeMutableBufferPointer { o in _ = SHA256(inp.baseAddress, inp.count, o.baseAddress) }
        }
        return out
    }

    /// Length-prefixed so no two different fingerprints encode the same bytes.
    private static func encode(_ f: Fingerprint) -> [UInt8] {
        let name = Array(f.algorithm.utf8)
        return [UInt8(truncatingIfNeeded: name.count)] + name + [UInt8(truncatingIfNeeded: f.bytes.count)] + f.bytes
    }
}

extension SAS {
    /// The 256 words, index = byte value (for display or tests).
    public static var wordList: [String] { words }
}

/// The outcome of checking MESSAGE-INTEGRITY(-SHA256) or FINGERPRINT.
public enum STUNCheck: Hashable, Sendable {
    case valid
    /// The message carries no such attribute.
    case absent
    /// The attribute is present and wrong, or the bytes are not STUN.
    case invalid
}

/// FINGERPRINT is the CRC-32 XORed with this constant ("STUN" in ASCII) so
/// it differs from the CRC of other protocols sharing the port (§14.7).
let fingerprintXOR: UInt32 = 0x5354_554E

extension STUNMessage {
    /// Checks the message integrity of a received datagram with `key`,
    /// over the bytes exactly as received (RFC 8489 §14.5, §14.6). When
    /// MESSAGE-INTEGRITY-SHA256 is present it is the one checked (the
    /// stronger of the two, and the one an RFC 8489 agent prefers);
    /// otherwise MESSAGE-INTEGRITY.
    public static func verifyIntegrity(of datagram: [UInt8], key: STUNKey) -> STUNCheck {
        guard let frame = try? STUNFrame.parse(datagram) else { return .invalid }
        let effective = frame.effectiveAttributes
        if let attribute = effective.first(where: { $0.type == .messageIntegritySHA256 }) {
            return check(attribute, .sha256, in: datagram, key: key)
        }
        if let attribute = effective.first(where: { $0.type == .messageIntegrity }) {
            return check(attribute, .sha1, in: datagram, key: key)
        }
        return .absent
    }

    /// Checks FINGERPRINT (RFC 8489 §14.7): it must be the last attribute
    /// and equal the CRC-32 of everything before it XOR 0x5354554E.
    public static func verifyFingerprint(of datagram: [UInt8]) -> STUNCheck {
        guard let frame = try? STUNFrame.parse(datagram) else { return .invalid }
        guard let index = frame.attributes.firstIndex(where: { $0.type == .fingerprint }) else { return .absent }
        let attribute = frame.attributes[index]
        guard index == frame.attributes.count - 1, attribute.value.count == 4 else { return .invalid }
        let received = attribute.value.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let covered = lengthAdjustedPrefix(of: datagram, upTo: attribute.start, attributeValueLength: 4)
        return CRC32.checksum(covered) ^ fingerprintXOR == received ? .valid : .invalid
    }

    private static func check(
        _ attribute: STUNRawAttribute, _ algorithm: Digest.Algorithm, in datagram: [UInt8], key: STUNKey
    ) -> STUNCheck {
        let received = attribute.value
        // SHA-256 MACs may be truncated (16...32 bytes, §14.6); SHA-1 never.
        let validLength = algorithm == .sha1
            ? received.count == 20
            : (16...32).contains(received.count) && received.count % 4 == 0
        guard validLength else { return .invalid }
        let covered = lengthAdjustedPrefix(of: datagram, upTo: attribute.start, attributeValueLength: received.count)
        guard let mac = Digest.hmac(algorithm, key: key.bytes, data: covered) else { return .invalid }
        return Digest.constantTimeEqual(Array(mac.prefix(received.count)), received) ? .valid : .invalid
    }

    /// The bytes before an attribute, with the header length rewritten as
    /// if the message ended right after that attribute: what the sender
    /// had when it computed the MAC or CRC.
    private static func lengthAdjustedPrefix(of datagram: [UInt8], upTo start: Int, attributeValueLength: Int) -> [UInt8] {
        var covered = Array(datagram.prefix(start))
        let length = start - stunHeaderLength + 4 + attributeValueLength
        if covered.count >= 4 {
            covered[2] = UInt8(truncatingIfNeeded: length >> 8)
            covered[3] = UInt8(truncatingIfNeeded: length)
        }
        return covered
    }
}

import Wire

/// The magic cookie every RFC 5389/8489 message carries (RFC 8489 §5).
public let stunMagicCookie: UInt32 = 0x2112_A442

/// Length of the fixed STUN header.
public let stunHeaderLength = 20

/// One attribute as framed on the wire, before its value is interpreted.
struct STUNRawAttribute {
    let type: STUNAttributeType
    /// Offset of the attribute header within the datagram.
    let start: Int
    let value: [UInt8]
}

/// The header and the attribute records of a datagram, checked only for
/// framing. Integrity and fingerprint checks run over this view because
/// they need the byte offsets as received.
struct STUNFrame {
    let type: STUNMessageType
    let transactionID: STUNTransactionID
    let attributes: [STUNRawAttribute]

    /// Checks the header (RFC 8489 §6.3: leading zero bits, magic cookie,
    /// length a multiple of 4 that matches the datagram).
    static func header(_ bytes: [UInt8]) -> (type: STUNMessageType, length: Int, id: STUNTransactionID)? {
        var reader = ByteReader(bytes)
        guard let rawType = reader.readU16(), let type = STUNMessageType(rawValue: rawType),
              let length = reader.readU16(), length % 4 == 0,
              let cookie = reader.readU32(), cookie == stunMagicCookie,
              let idBytes = reader.readBytes(12), let id = STUNTransactionID(bytes: idBytes),
              reader.remaining == Int(length)
        else { return nil }
        return (type, Int(length), id)
    }

    static func parse(_ bytes: [UInt8]) throws(STUNError) -> STUNFrame {
        guard let header = header(bytes) else { throw .notSTUN }
        var reader = ByteReader(bytes, range: stunHeaderLength..<(stunHeaderLength + header.length))
        var attributes: [STUNRawAttribute] = []
        while !reader.isAtEnd {
            let start = reader.offset
            guard let type = reader.readU16(), let length = reader.readU16(),
                  let value = reader.readBytes(Int(length)),
                  reader.skip(padding(Int(length)))
            else { throw .truncatedAttribute }
            attributes.append(STUNRawAttribute(type: STUNAttributeType(rawValue: type), start: start, value: value))
        }
        return STUNFrame(type: header.type, transactionID: header.id, attributes: attributes)
    }

    /// The attributes an agent may act on. RFC 8489 §14.5 and §14.6: after
    /// MESSAGE-INTEGRITY only MESSAGE-INTEGRITY-SHA256 and FINGERPRINT count,
    /// after MESSAGE-INTEGRITY-SHA256 only FINGERPRINT, and nothing after
    /// FINGERPRINT, so unauthenticated attributes appended by an attacker
    /// never surface.
    var effectiveAttributes: [STUNRawAttribute] {
        var kept: [STUNRawAttribute] = []
        var seenSHA1 = false, seenSHA256 = false
        for attribute in attributes {
            switch attribute.type {
            case .fingerprint:
                kept.append(attribute)
                return kept
            case .messageIntegrity:
                if !seenSHA1 && !seenSHA256 { kept.append(attribute) }
                seenSHA1 = true
            case .messageIntegritySHA256:
                if !seenSHA256 { kept.append(attribute) }
                seenSHA256 = true
            default:
                if !seenSHA1 && !seenSHA256 { kept.append(attribute) }
            }
        }
        return kept
    }
}

/// Bytes of padding after a value of `length` bytes (RFC 8489 §14).
func padding(_ length: Int) -> Int { (4 - length % 4) % 4 }

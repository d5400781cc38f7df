import Wire

extension STUNAttribute {
    /// Interprets one attribute value. Returns `nil` when a known attribute
    /// has a value of the wrong size or content; unknown types never fail.
    /// The transaction id is needed to undo the XOR of XOR-*-ADDRESS.
    static func decode(type: STUNAttributeType, value: [UInt8], transactionID: STUNTransactionID) -> STUNAttribute? {
        var reader = ByteReader(value)
        func exact(_ count: Int) -> Bool { value.count == count }
        func xorAddress() -> STUNAddress? {
            AddressCodec.decode(value).map { AddressCodec.xor($0, transactionID: transactionID) }
        }
        func text() -> String? { String(validating: value, as: UTF8.self) }

        switch type {
        case .mappedAddress: return AddressCodec.decode(value).map(STUNAttribute.mappedAddress)
        case .alternateServer: return AddressCodec.decode(value).map(STUNAttribute.alternateServer)
        case .otherAddress: return AddressCodec.decode(value).map(STUNAttribute.otherAddress)
        case .responseOrigin: return AddressCodec.decode(value).map(STUNAttribute.responseOrigin)
        case .xorMappedAddress: return xorAddress().map(STUNAttribute.xorMappedAddress)
        case .xorPeerAddress: return xorAddress().map(STUNAttribute.xorPeerAddress)
        case .xorRelayedAddress: return xorAddress().map(STUNAttribute.xorRelayedAddress)
        case .username: return text().map(STUNAttribute.username)
        case .realm: return text().map(STUNAttribute.realm)
        case .nonce: return text().map(STUNAttribute.nonce)
        case .software: return text().map(STUNAttribute.software)
        case .messageIntegrity:
            return exact(20) ? .messageIntegrity(value) : nil
        case .messageIntegritySHA256:
            // RFC 8489 §14.6: at least 16 bytes, at most 32, a multiple of 4.
            return (16...32).contains(value.count) && value.count % 4 == 0 ? .messageIntegritySHA256(value) : nil
        case .fingerprint:
            guard exact(4), let crc = reader.readU32() else { return nil }
            return .fingerprint(crc)
        case .errorCode:
            return decodeErrorCode(&reader).map(STUNAttribute.errorCode)
        case .unknownAttributes:
            guard value.count % 2 == 0 else { return nil }
            var types: [STUNAttributeType] = []
            while let raw = reader.readU16() { types.append(STUNAttributeType(rawValue: raw)) }
            return .unknownAttributes(types)
        case .priority:
            guard exact(4), let priority = reader.readU32() else { return nil }
            return .priority(priority)
        case .useCandidate:
            return exact(0) ? .useCandidate : nil
        case .iceControlled:
            guard exact(8), let tieBreaker = reader.readU64() else { return nil }
            return .iceControlled(tieBreaker: tieBreaker)
        case .iceControlling:
            guard exact(8), let tieBreaker = reader.readU64() else { return nil }
            return .iceControlling(tieBreaker: tieBreaker)
        case .changeRequest:
            guard exact(4), let flags = reader.readU32() else { return nil }
            return .changeRequest(changeIP: flags & 0x4 != 0, changePort: flags & 0x2 != 0)
        case .channelNumber:
            guard exact(4), let channel = reader.readU16() else { return nil }
            return .channelNumber(channel)
        case .lifetime:
            guard exact(4), let seconds = reader.readU32() else { return nil }
            return .lifetime(seconds)
        case .data:
            return .data(value)
        case .requestedAddressFamily:
            guard exact(4), let byte = reader.readU8(), let family = STUNAddress.Family(rawValue: byte) else { return nil }
            return .requestedAddressFamily(family)
        case .evenPort:
            guard exact(1), let flags = reader.readU8() else { return nil }
            return .evenPort(reserveNextPort: flags & 0x80 != 0)
        case .requestedTransport:
            guard exact(4), let proto = reader.readU8() else { return nil }
            return .requestedTransport(proto)
        case .dontFragment:
            return exact(0) ? .dontFragment : nil
        case .reservationToken:
            guard exact(8), let token = reader.readU64() else { return nil }
            return .reservationToken(token)
        default:
            return .other(type, value)
        }
    }

    /// ERROR-CODE (RFC 8489 §14.8): 21 reserved bits, a 3-bit class
    /// (hundreds), an 8-bit number (0–99), then a UTF-8 reason phrase. The
    /// reason is only informative, so invalid UTF-8 is repaired, not fatal.
    private static func decodeErrorCode(_ reader: inout ByteReader) -> STUNErrorCode? {
        guard reader.skip(2), let classByte = reader.readU8(), let number = reader.readU8(),
              number < 100
        else { return nil }
        let code = Int(classByte & 0x07) * 100 + Int(number)
        return STUNErrorCode(code: code, reason: String(decoding: reader.rest(), as: UTF8.self))
    }

    /// The unpadded value bytes of this attribute.
    func encodedValue(transactionID: STUNTransactionID) -> [UInt8] {
        var writer = ByteWriter(capacity: 16)
        switch self {
        case .mappedAddress(let address), .alternateServer(let address),
             .otherAddress(let address), .responseOrigin(let address):
            writer.write(AddressCodec.encode(address))
        case .xorMappedAddress(let address), .xorPeerAddress(let address), .xorRelayedAddress(let address):
            writer.write(AddressCodec.encode(AddressCodec.xor(address, transactionID: transactionID)))
        case .username(let text), .realm(let text), .nonce(let text), .software(let text):
            writer.write(text)
        case .messageIntegrity(let bytes), .messageIntegritySHA256(let bytes), .data(let bytes):
            writer.write(bytes)
        case .fingerprint(let crc):
            writer.writeU32(crc)
        case .errorCode(let error):
            writer.writeU16(0)
            writer.writeU8(UInt8(truncatingIfNeeded: error.code / 100))
            writer.writeU8(UInt8(truncatingIfNeeded: error.code % 100))
            writer.write(error.reason)
        case .unknownAttributes(let types):
            for type in types { writer.writeU16(type.rawValue) }
        case .priority(let priority):
            writer.writeU32(priority)
        case .useCandidate, .dontFragment:
            break
        case .iceControlled(let tieBreaker), .iceControlling(let tieBreaker):
            writer.writeU64(tieBreaker)
        case .changeRequest(let changeIP, let changePort):
            writer.writeU32((changeIP ? 0x4 : 0) | (changePort ? 0x2 : 0))
        case .channelNumber(let channel):
            writer.writeU16(channel)
            writer.writeU16(0)
        case .lifetime(let seconds):
            writer.writeU32(seconds)
        case .requestedAddressFamily(let family):
            writer.writeU8(family.rawValue)
            writer.write([0, 0, 0])
        case .evenPort(let reserveNextPort):
            writer.writeU8(reserveNextPort ? 0x80 : 0)
        case .requestedTransport(let proto):
            writer.writeU8(proto)
            writer.write([0, 0, 0])
        case .reservationToken(let token):
            writer.writeU64(token)
        case .other(_, let bytes):
            writer.write(bytes)
        }
        return writer.bytes
    }
}

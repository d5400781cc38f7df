import Wire

/// The address attribute value layout shared by MAPPED-ADDRESS and the
/// XOR-*-ADDRESS family (RFC 8489 §14.1, §14.2): a reserved byte, the
/// family, the port and the address.
enum AddressCodec {
    static func decode(_ value: [UInt8]) -> STUNAddress? {
        var reader = ByteReader(value)
        guard reader.readU8() != nil,
              let familyByte = reader.readU8(), let family = STUNAddress.Family(rawValue: familyByte),
              let port = reader.readU16(),
              let ip = reader.readBytes(family.addressLength), reader.isAtEnd
        else { return nil }
        return STUNAddress(ip: ip, port: port)
    }

    static func encode(_ address: STUNAddress) -> [UInt8] {
        var writer = ByteWriter(capacity: 20)
        writer.writeU8(0)
        writer.writeU8(address.family.rawValue)
        writer.writeU16(address.port)
        writer.write(address.ip)
        return writer.bytes
    }

    /// XOR-MAPPED-ADDRESS obfuscation (RFC 8489 §14.2): the port is XORed
    /// with the cookie's top 16 bits, an IPv4 address with the cookie and an
    /// IPv6 address with the cookie followed by the transaction id. It keeps
    /// NATs that rewrite addresses found in payloads away from the value.
    /// XOR is its own inverse, so the same function encodes and decodes.
    static func xor(_ address: STUNAddress, transactionID: STUNTransactionID) -> STUNAddress {
        var mask: [UInt8] = [0x21, 0x12, 0xA4, 0x42]
        if address.family == .ipv6 { mask += transactionID.bytes }
        var ip = address.ip
        for index in ip.indices where index < mask.count { ip[index] ^= mask[index] }
        let port = address.port ^ UInt16(truncatingIfNeeded: stunMagicCookie >> 16)
        return STUNAddress(ip: ip, port: port) ?? address
    }
}

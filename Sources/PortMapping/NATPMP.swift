import STUN
import Wire

/// NAT Port Mapping Protocol messages (RFC 6886): the external address
/// request and the UDP mapping request. Responses are parsed with their
/// exact sizes (§3.2, §3.3); anything else is ignored.
public enum NATPMP {
    /// RFC 6886 §3.1: the gateway listens on 5351.
    public static let serverPort: UInt16 = 5351
    public static let opcodeExternalAddress: UInt8 = 0
    public static let opcodeMapUDP: UInt8 = 1

    /// §3.2: version 0, opcode 0.
    public static func externalAddressRequest() -> [UInt8] { [0, opcodeExternalAddress] }

    /// §3.3: map `internalPort` for `lifetime` seconds; lifetime 0 with
    /// external port 0 deletes (§3.4).
    public static func mapRequest(internalPort: UInt16, suggestedExternalPort: UInt16, lifetime: UInt32) -> [UInt8] {
        var writer = ByteWriter(capacity: 12)
        writer.writeU8(0)
        writer.writeU8(opcodeMapUDP)
        writer.writeU16(0)
        writer.writeU16(internalPort)
        writer.writeU16(suggestedExternalPort)
        writer.writeU32(lifetime)
        return writer.bytes
    }

    /// A parsed response.
    public enum Answer: Sendable, Equatable {
        case externalAddress(result: UInt16, epoch: UInt32, ip: [UInt8])
        case map(result: UInt16, epoch: UInt32, internalPort: UInt16, externalPort: UInt16, lifetime: UInt32)
        /// A response header whose result is not success (any size from 8 bytes).
        case error(opcode: UInt8, result: UInt16)
    }

    /// `nil` for anything that is not a well-formed NAT-PMP response.
    public static func parse(_ bytes: [UInt8]) -> Answer? {
        var reader = ByteReader(bytes)
        guard bytes.count >= 8, bytes.count <= 1100, let version = reader.readU8(), version == 0, let op = reader.readU8(),
              op & 0x80 != 0, let result = reader.readU16(), let epoch = reader.readU32()
        else { return nil }
        let opcode = op & 0x7f
        if result != 0 { return .error(opcode: opcode, result: result) }
        switch opcode {
        case opcodeExternalAddress:
            guard bytes.count == 12, let ip = reader.readBytes(4) else { return nil }
            return .externalAddress(result: result, epoch: epoch, ip: ip)
        case opcodeMapUDP:
            guard bytes.count == 16, let internalPort = reader.readU16(), let external = reader.readU16(),
                  let lifetime = reader.readU32()
            else { return nil }
            return .map(result: result, epoch: epoch, internalPort: internalPort, externalPort: external, lifetime: lifetime)
        default:
            return nil
        }
    }
}

import STUN
import Wire

/// Port Control Protocol messages (RFC 6887): the MAP opcode for one UDP
/// port, the only request chatcli makes. Requests are built exactly;
/// responses are parsed with every length and field checked, so a hostile
/// gateway's bytes can at worst be ignored.
public enum PCP {
    /// RFC 6887 §19.1: the PCP server's port (shared with NAT-PMP).
    public static let serverPort: UInt16 = 5351
    /// RFC 6887 §7: version 2 (NAT-PMP is version 0).
    public static let version: UInt8 = 2
    /// RFC 6887 §19.2: opcode MAP.
    public static let opcodeMAP: UInt8 = 1
    /// RFC 6887 §7: a message is at most 1100 bytes and a multiple of 4.
    public static let maxMessageSize = 1100
    /// IANA protocol number for UDP.
    public static let protocolUDP: UInt8 = 17

    /// RFC 6887 §7.4 result codes (the ones chatcli tells apart).
    public enum ResultCode: UInt8, Sendable, Equatable {
        case success = 0
        case unsuppVersion = 1
        case notAuthorized = 2
        case malformedRequest = 3
        case unsuppOpcode = 4
        case unsuppOption = 5
        case malformedOption = 6
        case networkFailure = 7
        case noResources = 8
        case unsuppProtocol = 9
        case userExQuota = 10
        case cannotProvideExternal = 11
        case addressMismatch = 12
        case excessiveRemotePeers = 13
    }

    /// A MAP request (§11.1): map `internalPort` (UDP) of `clientIP` for
    /// `lifetime` seconds (0 deletes), suggesting `suggestedExternal`.
    public static func mapRequest(clientIP: [UInt8], nonce: [UInt8], internalPort: UInt16, lifetime: UInt32,
                                  suggestedExternal: STUNAddress? = nil) -> [UInt8] {
        var writer = ByteWriter(capacity: 60)
        writer.writeU8(version)
        writer.writeU8(opcodeMAP)
        writer.writeU16(0)
        writer.writeU32(lifetime)
        writer.write(ipv6Form(clientIP))
        writer.write(nonce.prefix(12))
        for _ in nonce.count..<12 { writer.writeU8(0) }
        writer.writeU8(protocolUDP)
        writer.write([0, 0, 0])
        writer.writeU16(internalPort)
        writer.writeU16(suggestedExternal?.port ?? 0)
        // All zeros: no preference (§11.1: the IPv4 "any" is ::ffff:0.0.0.0).
        writer.write(suggestedExternal.map { ipv6Form($0.ip) } ?? ipv6Form([0, 0, 0, 0]))
        return writer.bytes
    }

    /// A parsed MAP response (§11.1, §7.2).
    public struct MapResponse: Sendable, Equatable {
        public var result: UInt8
        public var lifetime: UInt32
        public var epoch: UInt32
        public var nonce: [UInt8]
        public var internalPort: UInt16
        public var external: STUNAddress
    }

    /// What a datagram from port 5351 is, to a PCP client.
    public enum Answer: Sendable, Equatable {
        case map(MapResponse)
        /// A response header with a non-zero result and no usable body, or
        /// a NAT-PMP-only server's version-0 answer (§9: it speaks NAT-PMP).
        case error(version: UInt8, result: UInt8)
    }

    /// `nil` for anything that is not a well-formed PCP response.
    public static func parse(_ bytes: [UInt8]) -> Answer? {
        guard bytes.count >= 4, bytes.count <= maxMessageSize else { return nil }
        var reader = ByteReader(bytes)
        guard let version = reader.readU8(), let op = reader.readU8(), reader.skip(1), let result = reader.readU8() else { return nil }
        // A NAT-PMP server answers a version it does not know with its own
        // header: version 0, result UNSUPP_VERSION (RFC 6886 §3.5).
        if version == 0 { return op & 0x80 != 0 ? .error(version: 0, result: result) : nil }
        guard version == PCP.version, op == 0x80 | opcodeMAP, bytes.count % 4 == 0, bytes.count >= 24 else { return nil }
        guard let lifetime = reader.readU32(), let epoch = reader.readU32(), reader.skip(12) else { return nil }
        guard result == ResultCode.success.rawValue else {
            return .error(version: version, result: result)
        }
        guard reader.remaining >= 36, let nonce = reader.readBytes(12), let proto = reader.readU8(), reader.skip(3),
              let internalPort = reader.readU16(), let externalPort = reader.readU16(), let ip = reader.readBytes(16),
              proto == protocolUDP, let external = STUNAddress(ip: shortestForm(ip), port: externalPort)
        else { return nil }
        return .map(MapResponse(result: result, lifetime: lifetime, epoch: epoch, nonce: nonce,
                                internalPort: internalPort, external: external))
    }

    /// IPv4 as an IPv4-mapped IPv6 address (§5), IPv6 as is.
    static func ipv6Form(_ ip: [UInt8]) -> [UInt8] {
        ip.count == 4 ? [UInt8](repeating: 0, count: 10) + [0xff, 0xff] + ip : Array(ip.prefix(16))
    }

    /// An IPv4-mapped IPv6 address as IPv4.
    static func shortestForm(_ ip: [UInt8]) -> [UInt8] {
        ip.count == 16 && ip[0..<10].allSatisfy({ $0 == 0 }) && ip[10] == 0xff && ip[11] == 0xff ? Array(ip[12..<16]) : ip
    }
}

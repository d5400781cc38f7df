/// A datagram a core wants sent: to the mDNS group on its interface (both
/// 224.0.0.251 and ff02::fb, port 5353), or back to one querier.
public struct MDNSTransmit: Equatable, Sendable {
    public enum Destination: Equatable, Sendable {
        case multicast
        /// Address bytes (4 or 16) and port, for QU and legacy unicast answers.
        case unicast(address: [UInt8], port: UInt16)
    }

    public var destination: Destination
    public var message: DNSMessage

    public var bytes: [UInt8] { message.encoded() }
}

/// RFC 6762 constants.
public enum MDNS {
    public static let port: UInt16 = 5353
    public static let ipv4Group: [UInt8] = [224, 0, 0, 251]
    public static let ipv6Group: [UInt8] = [0xFF, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFB]
    /// TTLs of RFC 6762 §10: host records 120 s, the others 75 minutes.
    public static let hostTTL: UInt32 = 120
    public static let otherTTL: UInt32 = 4500
    public static let local = DNSName("local")!
}

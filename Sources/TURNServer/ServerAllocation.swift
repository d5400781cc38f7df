import STUN

/// The client-to-server leg of an allocation (RFC 8656 §2.2: the 5-tuple
/// of client address, server address and transport protocol).
public struct FiveTuple: Hashable, Sendable, CustomStringConvertible {
    public enum Transport: Hashable, Sendable {
        case udp, tcp, tls

        /// ChannelData over a stream is padded to four bytes (§12.5).
        var isStream: Bool { self != .udp }
    }

    public let client: STUNAddress
    public let server: STUNAddress
    public let transport: Transport

    public init(client: STUNAddress, server: STUNAddress, transport: Transport) {
        self.client = client
        self.server = server
        self.transport = transport
    }

    public var description: String { "\(transport) \(client)->\(server)" }
}

/// One allocation as the server keeps it (RFC 8656 §5): a relayed address,
/// who owns it, until when, and its permissions and channel bindings, each
/// with its own expiry (pion/turn's shape: plain data, one clock).
struct ServerAllocation {
    let tuple: FiveTuple
    let relayed: STUNAddress
    /// What XOR-RELAYED-ADDRESS told the client: `relayed`, or its public
    /// twin behind a 1:1 NAT (`TURNExternalAddress`).
    let advertised: STUNAddress
    /// The REST username whose key authenticated the Allocate; every later
    /// request on this allocation must come from it (441 otherwise).
    let username: String
    let user: String
    let key: STUNKey
    var expiry: Duration
    /// Peer IP → expiry (RFC 8656 §9: permissions are per IP, no port).
    var permissions: [[UInt8]: Duration] = [:]
    /// Channel number → (peer, expiry), and the reverse look-up.
    var channels: [UInt16: (peer: STUNAddress, expiry: Duration)] = [:]
    var channelByPeer: [STUNAddress: UInt16] = [:]
    var bandwidth: TokenBucket
    /// The Allocate's transaction id and answer, resent unchanged to a
    /// retransmitted Allocate (RFC 8656 §7.2, the 437 exception).
    let allocateTransaction: STUNTransactionID
    let allocateResponse: [UInt8]

    func hasPermission(for ip: [UInt8], now: Duration) -> Bool {
        permissions[ip].map { $0 > now } ?? false
    }

    func channel(for peer: STUNAddress, now: Duration) -> UInt16? {
        guard let number = channelByPeer[peer], let binding = channels[number], binding.expiry > now else { return nil }
        return number
    }

    func peer(onChannel number: UInt16, now: Duration) -> STUNAddress? {
        guard let binding = channels[number], binding.expiry > now else { return nil }
        return binding.peer
    }

    /// Drops expired permissions and channel bindings.
    mutating func purge(now: Duration) {
        permissions = permissions.filter { $0.value > now }
        for (number, binding) in channels where binding.expiry <= now {
            channels[number] = nil
            if channelByPeer[binding.peer] == number { channelByPeer[binding.peer] = nil }
        }
    }
}

import STUN

/// What the relay asks its owner to do. The owner moves bytes: it never
/// decides anything.
public enum TURNServerOutput: Hashable, Sendable {
    /// Send to a client over its 5-tuple (a datagram, or stream bytes).
    case toClient(FiveTuple, [UInt8])
    /// Send from the relayed address `relay` to `peer`.
    case toPeer(relay: STUNAddress, peer: STUNAddress, [UInt8])
    /// Open a UDP socket for a new relayed address of `family`, then call
    /// `relayOpened(_:address:now:)` with its address (or `nil` if none
    /// could be opened: the client gets 508).
    case openRelay(PendingAllocation)
    /// The allocation is gone (expired, deleted): close this relayed socket.
    case closeRelay(STUNAddress)
}

/// An Allocate that passed every check and waits for its relayed socket.
public struct PendingAllocation: Hashable, Sendable {
    public let tuple: FiveTuple
    public let family: TURNFamily
    let transactionID: STUNTransactionID
    let username: String
    let user: String
    let key: STUNKey
    let lifetime: Duration
    /// EVEN-PORT asked for an even relayed port (RFC 8656 §14.6).
    public let evenPort: Bool
}

/// Counters an operator watches (`/metrics`); they only grow, except
/// `allocations`.
public struct TURNServerStatistics: Hashable, Sendable {
    public var allocations = 0
    public var allocationsCreated = 0
    /// Bytes and packets relayed, client to peer and peer to client.
    public var bytesToPeers = 0
    public var bytesToClients = 0
    public var packetsToPeers = 0
    public var packetsToClients = 0
    /// Permissions, channel bindings and datagrams refused by the peer policy.
    public var refusedPeers = 0
    /// Datagrams dropped over a bandwidth cap.
    public var droppedOverBandwidth = 0
    /// Error responses sent, by code.
    public var errors: [Int: Int] = [:]

    public init() {}
}

/// Counters for diagnostics, tests and benchmarks.
public struct SCTPStatistics: Sendable, Equatable {
    public var packetsReceived = 0
    public var dataChunksReceived = 0
    public var duplicateChunksReceived = 0
    public var dataChunksSent = 0
    public var fastRetransmissions = 0
    public var retransmittedChunks = 0
    /// Fast retransmissions found lost again and resent without waiting for
    /// T3 (RFC 8985-style, by send time).
    public var lostRetransmissions = 0
    public var t3Expirations = 0
    /// Slow starts ended by a growing round trip (HyStart) rather than loss.
    public var slowStartDelayExits = 0
    public var sacksSent = 0
    /// Second copies of small messages on redundant streams.
    public var redundantCopiesSent = 0
    /// Path MTU probes sent (RFC 8899).
    public var pathMTUProbes = 0
    /// Messages from the peer discarded as larger than `maxMessageSize`.
    public var messagesDiscarded = 0
    public init() {}
}

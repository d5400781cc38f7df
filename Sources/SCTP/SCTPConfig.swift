/// Tunables of an association. Defaults suit WebRTC data channels over DTLS
/// (RFC 8261 §5: SCTP packets kept to about 1200 bytes).
public struct SCTPConfig: Sendable {
    public var localPort: UInt16 = 5000
    public var remotePort: UInt16 = 5000
    /// Largest SCTP packet produced (common header included).
    public var maxPacketSize: Int = 1200
    /// Largest SCTP packet Path MTU Discovery may probe for and use (RFC
    /// 8899); at most `maxPacketSize` (no search) by default. The lower
    /// layer must carry it (DTLS: up to 2^14 bytes of plaintext).
    public var maxProbePacketSize: Int = 0
    /// Largest user message accepted by `send` and reassembled on receipt
    /// (SDP `a=max-message-size`).
    public var maxMessageSize: Int = 262_144
    /// Receive buffer, advertised as a_rwnd: 4 MiB keeps a 100 ms round
    /// trip at about 40 MB/s (1 MiB held it to 10 MB/s, half what TCP got).
    public var receiveBufferSize: Int = 4_194_304
    public var outboundStreams: UInt16 = 65535
    public var inboundStreams: UInt16 = 65535
    public var rtoInitial: Duration = .seconds(1)
    /// Above the delayed-ack timeout so a lone delayed SACK does not cause a
    /// spurious retransmission.
    public var rtoMin: Duration = .milliseconds(300)
    public var rtoMax: Duration = .seconds(60)
    public var delayedAckTimeout: Duration = .milliseconds(200)
    public var maxInitRetransmits = 8
    public var maxAssociationRetransmits = 10
    public var cookieLifetime: Duration = .seconds(60)
    /// How the sender decides how fast to send.
    public var congestionControl: SCTPCongestionControl = .bbr

    public init() {}

    /// Largest user-data fragment that fits a packet alone with its DATA
    /// header and padding (chunks pad to 4 bytes, so an unaligned packet
    /// limit such as DTLS's 1163 must round down, or the chunk never fits).
    var maxFragmentSize: Int { max(64, (maxPacketSize - SCTPPacket.commonHeaderSize - 16) & ~3) }
}

/// The sender's congestion control.
public enum SCTPCongestionControl: String, Sendable, CaseIterable {
    /// Model-based, paced (draft-ietf-ccwg-bbr, BBRv3's loss response):
    /// keeps a lossy long path full.
    case bbr
    /// Loss-based (RFC 9438) with HyStart, as TCP has it by default.
    case cubic
}

/// What the application learns from an association.
public enum SCTPEvent: Equatable, Sendable {
    /// The handshake completed; data may flow.
    case connected
    /// One complete user message.
    case message(stream: UInt16, ppid: UInt32, bytes: [UInt8])
    /// The peer sent a message on `stream` larger than `maxMessageSize`: it
    /// was discarded (the peer was told with an ERROR chunk), and the
    /// stream goes on with the next message.
    case messageTooLarge(stream: UInt16)
    /// The peer reset these outgoing streams (our incoming ones): it will
    /// send no more on them (RFC 6525); for data channels that means close.
    case streamReset([UInt16])
    /// Our own outgoing reset request for these streams was performed.
    case outgoingStreamReset([UInt16])
    /// The peer shut the association down and everything we sent is
    /// acknowledged: SHUTDOWN ACK is out (RFC 9260 §9.2; RFC 6458's
    /// SCTP_SHUTDOWN_EVENT). The peer sends nothing more; `.closed` follows
    /// when SHUTDOWN COMPLETE arrives, which a peer that is already gone
    /// never sends.
    case peerShutDown
    /// The association ended; no further events follow.
    case closed(SCTPCloseReason)
}

public enum SCTPCloseReason: Equatable, Sendable {
    /// Graceful SHUTDOWN sequence completed.
    case shutdown
    /// We called `abort()`.
    case abortedLocally
    /// The peer sent ABORT.
    case abortedByPeer
    /// Retransmissions (INIT, COOKIE ECHO, DATA or SHUTDOWN) went unanswered.
    case timeout
}

/// Errors the application can act on.
public struct SCTPError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: String
    public var description: String { code }

    public static let notConnected = SCTPError(code: "not_connected")
    public static let closing = SCTPError(code: "association_closing")
    public static let messageTooLarge = SCTPError(code: "message_too_large")
    public static let invalidStream = SCTPError(code: "invalid_stream")
    public static let emptyMessage = SCTPError(code: "empty_message")
}

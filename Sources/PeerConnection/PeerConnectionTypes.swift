import DTLS
import ICE
import SCTP
import STUN

/// The SCTP sender's congestion control, by its name in `CHATCLI_CONGESTION_CONTROL`.
public typealias CongestionControlAlgorithm = SCTPCongestionControl

public struct PeerConnectionConfig: Sendable {
    /// STUN servers for server-reflexive candidates.
    public var stunServers: [STUNAddress] = []
    /// TURN servers for relayed candidates (`ice.relayOnly` keeps only those).
    public var turnServers: [ICETURNServer] = []
    public var ice = ICEConfig()
    /// Largest UDP payload (DTLS datagram) sent during the handshake, and
    /// the SCTP packet size every path starts from.
    public var mtu = 1200
    /// Path MTU Discovery (RFC 8899): SCTP probes for larger packets, up to
    /// this size (at most 2^14, one DTLS record); `mtu` alone keeps every
    /// packet at the base size, as on the internet path it assumes.
    public var maxPacketSize = 16_384
    /// The SCTP sender's congestion control.
    public var congestionControl: CongestionControlAlgorithm = SCTPConfig().congestionControl
    /// The chat channel (WireProtocol.md §3).
    public var channelLabel = "chat"
    /// The optional extras channel (WireProtocol.md §3), opened by the offerer after `chat`.
    public var controlChannelLabel = "ctl"
    /// The DTLS certificate to present (a saved session's, so that its peer
    /// sees the same fingerprint again); nil: a fresh one per connection.
    public var certificate: DTLSCertificate?
    /// Announce `a=x-chatcli-pake` (chatcli runs the code's PAKE on `ctl`).
    public var announcesCodePAKE = false
    public init() {}
}

/// What the selected path looks like, for the `connected` event and `/status`.
public struct ConnectionInfo: Sendable, Equatable {
    /// `host`, `srflx`, `prflx` or `relay` (WireProtocol.md §4).
    public var path: String
    public var local: String
    public var remote: String
    public var sas: String
    public var rttMilliseconds: Int?

    public init(path: String, local: String, remote: String, sas: String, rttMilliseconds: Int?) {
        self.path = path
        self.local = local
        self.remote = remote
        self.sas = sas
        self.rttMilliseconds = rttMilliseconds
    }
}

public enum PeerConnectionEvent: Sendable, Equatable {
    /// A local candidate to trickle (the `candidate:` attribute value).
    case localCandidate(String)
    case endOfCandidates
    /// ICE found a working pair (before DTLS).
    case iceConnected(ICEPair)
    /// The chat channel is open: messages can flow.
    case connected(ConnectionInfo)
    case message(String)
    /// The peer sent a chat message larger than our `a=max-message-size`:
    /// it was discarded (the peer's SCTP stack was told) and the chat goes on.
    case messageTooLarge
    /// The `ctl` channel is open: `sendControl` works from now on.
    case controlOpen
    /// A text message on the `ctl` channel (JSON, still to be parsed).
    case controlMessage(String)
    /// The path stopped answering (consent checks unanswered, or a restart
    /// found no pair): an ICE restart may bring it back. Only after DTLS is
    /// up; before that a failure is `failed`.
    case disconnected(PathLoss)
    /// A working path again after `disconnected` (consent came back or an
    /// ICE restart selected a new pair); the channel carried on.
    case reconnected(ConnectionInfo)
    /// The network changed under the connection (ours: an address came or
    /// went; or the peer's: it trickled a host candidate after the pair was
    /// selected). The path is presumed down: the offerer restarts ICE at
    /// once (`restartICE`), `reconnected` follows.
    case networkChanged(NetworkChange)
    /// The peer closed the channel or the association.
    case closed
    case failed(PeerConnectionError)
}

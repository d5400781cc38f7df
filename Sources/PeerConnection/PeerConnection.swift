import DTLS
import ICE
import SCTP
import SDP
import STUN
import Wire

/// A WebRTC data-channel peer connection (WireProtocol.md §3) as one sans-IO state
/// machine: ICE finds a path, DTLS 1.2 secures it (the peer's certificate must
/// match its SDP fingerprint), SCTP carries the `chat` channel (DCEP). The
/// runtime feeds datagrams and time in and sends what `pollTransmit` returns;
/// signaling carries `createOffer`/`acceptOffer`/`acceptAnswer` and the
/// trickled candidates.
public final class PeerConnection {
    public let isOfferer: Bool
    let config: PeerConnectionConfig
    let agent: ICEAgent
    let certificate: DTLSCertificate
    /// This connection's DTLS association (`a=tls-id`, RFC 8842): a peer that
    /// keeps its certificate across processes still starts a new association.
    let tlsID: String
    var random: any RandomNumberGenerator
    var now: Duration

    var remote: SessionDescription?
    /// The peer's certificate fingerprint, from its session description.
    public internal(set) var remoteFingerprint: Fingerprint?
    var localSetup: DTLSSetup = .actpass
    var dtlsRole: DTLSEndpoint.Role?
    var dtls: DTLSEndpoint?
    var earlyDTLS: [[UInt8]] = []
    var sctp: DataChannelEndpoint?
    var chatChannel: UInt16? {
        didSet { if let chatChannel { chatChannelID = chatChannel } }
    }
    /// The chat channel's stream, kept after it closes (acknowledgements still count).
    var chatChannelID: UInt16?
    var controlChannel: UInt16?
    /// Events of channels other than `chat` and `ctl` (file transfers), for `pollChannelEvent`.
    var channelEvents: [DataChannelEvent] = []
    var channelEventHead = 0
    /// Someone polls `pollChannelEvent` (else those events are dropped, so a
    /// peer's channels cannot pile up in memory).
    public var routesChannels = false
    /// Chat messages and their bytes each way (the `ctl` channel not counted).
    public internal(set) var counters = ChatCounters()
    var pendingCandidates: [String?] = []
    var transmits = Deque<ICETransmit>()
    var events = Deque<PeerConnectionEvent>()
    var info: ConnectionInfo?
    var finished = false
    var pathDown = false
    /// When the current remote description was applied (see `PeerConnection+NetworkChange`).
    var remoteDescriptionAt: Duration?

    public init(isOfferer: Bool, localAddresses: [STUNAddress], config: PeerConnectionConfig = PeerConnectionConfig(),
                now: Duration, random: any RandomNumberGenerator = SystemRandomNumberGenerator()) throws(PeerConnectionError) {
        self.isOfferer = isOfferer
        self.config = config
        self.now = now
        self.random = random
        if let saved = config.certificate {
            certificate = saved
        } else {
            do {
                certificate = try DTLSCertificate()
            } catch {
                throw .certificateUnavailable(error)
            }
        }
        var rng = random
        tlsID = (0..<3).map { _ in String(rng.next() | 1 << 63, radix: 16) }.joined()
        let credentials = ICECredentials.random(using: &rng)
        agent = ICEAgent(role: isOfferer ? .controlling : .controlled, localCredentials: credentials,
                         tieBreaker: rng.next(), config: config.ice, now: now, random: rng)
        self.random = rng
        for address in localAddresses { agent.addLocalInterface(address) }
        for server in config.stunServers { agent.addSTUNServer(server) }
        for turn in config.turnServers {
            agent.addTURNServer(turn.address, transport: turn.transport, username: turn.username, password: turn.password)
        }
        drainICE()
    }

    /// Our SHA-256 certificate fingerprint, as the SDP carries it.
    public var localFingerprint: Fingerprint { certificate.fingerprint }

    /// The short authentication string both sides show once connected.
    public var sas: String? {
        remoteFingerprint.map { SAS.words(localFingerprint: certificate.fingerprint, remoteFingerprint: $0) }
    }

    public var connectionInfo: ConnectionInfo? { info }
    public var selectedPair: ICEPair? { agent.selectedPair }

    /// True once everything sent on the channel has been acknowledged by the peer's SCTP.
    public var isFullyAcknowledged: Bool { sctp?.isFullyAcknowledged ?? true }
    public var bufferedAmount: Int { sctp?.bufferedAmount ?? 0 }
    /// Chat messages sent on this connection that the peer's SCTP acknowledged
    /// (in order: the first `n` sent). A peer that does not speak the `ctl`
    /// delivery acknowledgements is known to have them by this alone.
    public var chatMessagesAcknowledged: Int {
        guard let sctp, let chatChannel = chatChannelID else { return 0 }
        return sctp.acknowledgedMessages(on: chatChannel)
    }
    public var isOpen: Bool { chatChannel != nil && !finished }

    public func send(text: String) throws(PeerConnectionError) {
        guard let sctp, let chatChannel, !finished else { throw .channelNotOpen(label: config.channelLabel) }
        do {
            try sctp.send(text: text, on: chatChannel)
            counters.countSent(text)
        } catch {
            throw .cannotSend(label: config.channelLabel, error)
        }
        flush()
    }

    /// Graceful close, as browsers expect it: every open channel's outgoing
    /// stream is reset (RFC 8831 §6.7; Chromium closes a channel on that, not
    /// on SHUTDOWN), then SCTP SHUTDOWN once those resets are answered and
    /// all data is acknowledged. Without an association: DTLS close_notify.
    /// Keep feeding input and timeouts until `isShutDown`.
    public func close() {
        guard !finished else { return }
        finished = true
        defer { flush() }
        guard let sctp, sctp.isConnected else {
            dtls?.close()
            return
        }
        for channel in sctp.openChannels { sctp.closeChannel(channel.id) }
        sctp.close()
    }

    /// The SCTP association is over (or never was): false while `close` shuts it down gracefully.
    public var isShutDown: Bool { sctp?.isClosed ?? true }
    /// The SCTP association's state in one line (`SCTPAssociation.diagnostics`), once there is one.
    public var sctpDiagnostics: String? { sctp?.association.diagnostics }

    /// Deletes the TURN allocations (after `close` had time to say goodbye
    /// through them); send what `pollTransmit` returns before closing sockets.
    public func releaseRelays(now: Duration) {
        self.now = now
        agent.close(now: now)
        drainICE()
    }
}

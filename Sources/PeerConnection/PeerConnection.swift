import DTLS
import ICE
import SCTP
import SDP
import STUN

/// A WebRTC data-channel peer connection (PROTOCOL §3) as one sans-IO state
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
    var random: any RandomNumberGenerator
    var now: Duration

    var remote: SessionDescription?
    var remoteFingerprint: Fingerprint?
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
    var transmits: [ICETransmit] = []
    var events: [PeerConnectionEvent] = []
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
        do {
            certificate = try DTLSCertificate()
        } catch {
            throw PeerConnectionError("cannot make a DTLS certificate: \(error)")
        }
        var rng = random
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
        guard let sctp, let chatChannel, !finished else { throw PeerConnectionError("the chat channel is not open") }
        do {
            try sctp.send(text: text, on: chatChannel)
            counters.countSent(text)
        } catch {
            throw PeerConnectionError("cannot send: \(error.description)")
        }
        flush()
    }

    /// Graceful close: SCTP SHUTDOWN, then DTLS close_notify.
    public func close() {
        guard !finished else { return }
        finished = true
        if let sctp, sctp.isConnected { sctp.close() } else { dtls?.close() }
        flush()
    }

    /// Deletes the TURN allocations (after `close` had time to say goodbye
    /// through them); send what `pollTransmit` returns before closing sockets.
    public func releaseRelays(now: Duration) {
        self.now = now
        agent.close(now: now)
        drainICE()
    }
}

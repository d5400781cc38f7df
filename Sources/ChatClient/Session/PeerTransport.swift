import ICE
import PeerConnection
import SCTP

/// What the chat session needs of a peer connection: negotiation, its
/// events, the `chat` and `ctl` channels and their acknowledgements, the
/// data channels of file transfers, and closing. The session is the only
/// one that calls these (its driver only moves the connection's datagrams).
/// `PeerConnection` is the real one; the session tests drive the session
/// with an in-memory stand-in, so every lifecycle scenario runs on a
/// manual clock without sockets, DTLS or real time.
public protocol PeerTransport: AnyObject {
    var isOfferer: Bool { get }
    /// The `chat` channel is open.
    var isOpen: Bool { get }
    var isControlOpen: Bool { get }
    var canRestartICE: Bool { get }
    var isPathDown: Bool { get }
    /// `host`, `srflx`, `prflx` or `relay` while a pair is selected.
    var selectedPath: String? { get }
    var connectionInfo: ConnectionInfo? { get }
    /// The first `n` chat messages sent here reached the peer's SCTP.
    var chatMessagesAcknowledged: Int { get }
    var isFullyAcknowledged: Bool { get }
    /// Our DTLS certificate's SHA-256 fingerprint.
    var localCertificateFingerprint: [UInt8] { get }
    /// The peer's, once its session description is in (DTLS enforces it).
    var remoteCertificateFingerprint: [UInt8]? { get }
    /// Its session description announced the code's PAKE (chatcli's does; a
    /// browser's, Inviso's or aiortc's does not).
    var peerRunsCodePAKE: Bool { get }

    func createOffer() -> String
    func acceptOffer(_ sdp: String) throws(PeerConnectionError) -> String
    func acceptAnswer(_ sdp: String) throws(PeerConnectionError)
    /// An offer that restarts ICE on this connection (same certificate).
    func isSameSession(_ sdp: String) -> Bool
    func restartICE() -> String
    func addRemoteCandidate(_ candidate: String?)
    func send(text: String) throws(PeerConnectionError)
    func sendControl(_ text: String) throws(PeerConnectionError)
    /// Graceful: SCTP SHUTDOWN, then DTLS close_notify.
    func close()
    /// The next event (negotiation, the channels, the path), in order.
    func pollEvent() -> PeerConnectionEvent?
    /// The selected candidate pair (`/status`).
    var selectedPair: ICEPair? { get }

    // File transfers' data channels (FileTransfers).
    /// Events of channels other than `chat` and `ctl` are kept for `pollChannelEvent`.
    var routesChannels: Bool { get set }
    func openChannel(label: String, protocolName: String) throws(PeerConnectionError) -> UInt16
    func pollChannelEvent() -> DataChannelEvent?
    func send(binary: [UInt8], on channel: UInt16) throws(PeerConnectionError)
    /// Bytes queued in SCTP and not yet sent.
    var bufferedAmount: Int { get }
    func closeChannel(_ channel: UInt16)
    func flushChannels()
}

extension PeerConnection: PeerTransport {
    public var selectedPath: String? { selectedPair?.path }
    public var localCertificateFingerprint: [UInt8] { localFingerprint.bytes }
    public var remoteCertificateFingerprint: [UInt8]? { remoteFingerprint?.bytes }
}

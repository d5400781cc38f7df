import ICE
import PeerConnection

/// What the chat session needs of a peer connection: negotiation, the
/// `chat` and `ctl` channels and their acknowledgements, and closing.
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
}

extension PeerConnection: PeerTransport {
    public var selectedPath: String? { selectedPair?.path }
    public var localCertificateFingerprint: [UInt8] { localFingerprint.bytes }
    public var remoteCertificateFingerprint: [UInt8]? { remoteFingerprint?.bytes }
}

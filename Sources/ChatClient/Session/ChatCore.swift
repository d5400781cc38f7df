import PeerConnection
import HTTP1

/// What a driver (`ChatManager`, the tests' world) runs: a two-person
/// `ChatSession` or a `GroupSession`, the same way. Inputs carry `now`;
/// `pollAction` and `pollTimeout` say what to do and when to come back.
public protocol ChatCore: AnyObject {
    func start(now: Duration)
    func pollAction() -> SessionAction?
    var hasActions: Bool { get }
    func pollTimeout() -> Duration?
    func handleTimeout(now: Duration)
    func handleReply(_ id: Int, _ result: Result<HTTPResponse, ClientError>, now: Duration)
    func handleSignaling(_ event: SignalingEvent, now: Duration)
    /// A connection had news; true when anything moved (the driver goes round again).
    @discardableResult func handlePeerActivity(now: Duration) -> Bool
    func peerCreated(_ transport: any PeerTransport, request: Int, now: Duration)
    func peerCreationFailed(_ error: ClientError, request: Int, now: Duration)
    func signalingLeft(now: Duration)
    func send(line: String, now: Duration)
    func endOfInput(now: Duration)
    func quit(now: Duration)
    func leaveNow(now: Duration)
    func interrupt(status: Int32, now: Duration)
    var isFinished: Bool { get }
    var undeliveredMessages: Int { get }
}

extension ChatSession: ChatCore {
    public func peerCreationFailed(_ error: ClientError, request: Int, now: Duration) {
        advance(now)
        guard case .requested(request, _, _) = leg else { return }   // superseded meanwhile
        peerCreationFailed(error, now: now)
    }
}

extension GroupSession: ChatCore {
    public func send(line: String, now: Duration) { send(line: line, to: nil, now: now) }
}

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
    /// A line for everyone; `/to NAME TEXT` (a member's name or id) for one member only.
    public func send(line: String, now: Duration) {
        guard line.hasPrefix(Self.toPrefix) else { return send(line: line, to: nil, now: now) }
        let rest = line.dropFirst(Self.toPrefix.count)
        let name = String(rest.prefix { $0 != " " })
        let text = String(rest.dropFirst(name.count).drop { $0 == " " })
        guard !name.isEmpty, !text.isEmpty else {
            advance(now)
            emit(.notSent(code: "usage", message: "Type /to followed by a member's name and the message, e.g. /to bob see you at 5."))
            return drain()
        }
        guard let member = member(named: name) else {
            advance(now)
            emit(.notSent(code: "no_such_member", message: "Nobody called \(name) is in the group (see /who); that line was not sent."))
            return drain()
        }
        send(line: text, to: member, now: now)
    }

    /// In a group, a line starting with this goes to one member.
    public static let toPrefix = "/to "
}

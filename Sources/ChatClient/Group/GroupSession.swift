import HTTP1
import PeerConnection
import Signaling
import Wire

/// A chat of three to eight people (WireProtocol §2b) as a set of pairwise
/// chats under one room: one `ChatSession` per other member, each with its
/// own connection, PAKE, outbox and inbox, exactly as a two-person chat.
/// The group owns what the pairs share: pairing by code, the signaling
/// socket and the seat in the room. Each pair's signaling is the group's,
/// addressed to its member (`to`), and the room's membership frames reach
/// it as a two-member room's would (`member_joined` as `room_ready`,
/// `member_left` as `peer_left` or `peer_disconnected`).
///
/// Pairing is a `ChatSession` too (the lobby): for `create --group` it makes
/// a group room; for `join CODE` it accepts the code, and if the room turns
/// out to be a pair's, the lobby simply is the chat (every action passes
/// through), so two-person chats behave exactly as before.
///
/// The same shape as `ChatSession` (`ChatCore`): inputs with `now`,
/// `pollAction`, `pollTimeout`. Sans-IO.
public final class GroupSession {
    public struct Options: Sendable {
        public var chat: ChatSession.Options
        /// This member's display name (`--as NAME`); a short handle from its member id otherwise.
        public var name: String?

        public init(chat: ChatSession.Options, name: String? = nil) {
            self.chat = chat
            self.name = name
        }
    }

    enum Phase {
        /// Pairing by code; the lobby's actions are the group's. If the
        /// code was a two-member room's, the lobby stays: it is the chat.
        case lobby(ChatSession)
        /// In the group room (`seated` once `room_joined` came).
        case room(GroupEntry, seated: Bool)
        /// The user left: pairs are closing, then `leave_room`.
        case leaving(GroupEntry, status: Int32)
        case finished
    }

    /// One other member: its pairwise chat, when there is one.
    struct Member {
        let id: MemberID
        var name: String
        /// We make the offer to it (the member admitted earlier offers).
        var offers: Bool
        /// Seated in the room now, as the server last said.
        var present: Bool
        /// Nil once the pair ended (the member left, or the pair failed).
        var pair: ChatSession?
    }

    let options: Options
    var phase: Phase
    var now: Duration
    /// A generator for each session: the PAKE draws its secrets from it,
    /// so outside tests it must be the system's CSPRNG.
    let makeRandom: () -> any RandomNumberGenerator
    var actions = Deque<SessionAction>()
    var members: [MemberID: Member] = [:]
    /// Members in the order they came, for `/who` and for sending.
    var order: [MemberID] = []
    var iceServers: [ICEServerEntry] = []
    var socketOpen = false
    var clientID = ""
    /// Peer requests of the pairs, by the id the driver sees.
    var peerRequests: [Int: (member: MemberID, request: Int)] = [:]
    var nextPeerRequest = 1
    var iceRequest: Int?
    var inputEnded = false
    var rejoinAt: Duration?
    var roomFullSince: Duration?
    var forcedExitAt: Duration?
    var serverLost = false

    /// `create`: a new group room of at most `max` members. `join`: the
    /// code of a group room or of a two-person chat.
    public enum Mode: Equatable, Sendable {
        case create(expiresIn: Int, max: Int)
        case join(code: String)
    }

    public init(mode: Mode, options: Options, now: Duration,
                random: @escaping () -> any RandomNumberGenerator = { SystemRandomNumberGenerator() }) {
        self.options = options
        self.now = now
        var lobbyOptions = options.chat
        let lobbyMode: SessionMode
        switch mode {
        case .create(let expiresIn, let max):
            lobbyOptions.groupMax = max
            lobbyMode = .create(expiresIn: expiresIn)
        case .join(let code):
            lobbyMode = .join(code: code)
        }
        makeRandom = random
        phase = .lobby(ChatSession(mode: lobbyMode, options: lobbyOptions, now: now, random: random()))
    }

    // MARK: Driving

    public func start(now: Duration) {
        advance(now)
        if case .lobby(let lobby) = phase { lobby.start(now: now) }
        drain()
    }

    public func pollAction() -> SessionAction? { actions.popFirst() }

    public var hasActions: Bool { !actions.isEmpty }

    public func pollTimeout() -> Duration? {
        switch phase {
        case .lobby(let session): return session.pollTimeout()
        case .finished: return nil
        case .room, .leaving:
            let own = [rejoinAt, forcedExitAt].compactMap { $0 }
            return (own + pairs.compactMap { $0.pollTimeout() }).min()
        }
    }

    public func handleTimeout(now: Duration) {
        advance(now)
        if let single { single.handleTimeout(now: now); return drain() }
        for pair in pairs { pair.handleTimeout(now: now) }
        if let at = rejoinAt, at <= now { rejoinAt = nil; joinRoom() }
        if let at = forcedExitAt, at <= now { forcedExitAt = nil; finish(forcedExitStatus) }
        drain()
    }

    public var isFinished: Bool {
        switch phase {
        case .finished: return true
        case .lobby(let session): return session.isFinished
        default: return false
        }
    }

    /// The lobby (or the two-person chat it became), while the group is one session.
    var single: ChatSession? {
        if case .lobby(let session) = phase { return session }
        return nil
    }

    var pairs: [ChatSession] { order.compactMap { members[$0]?.pair } }

    var entry: GroupEntry? {
        switch phase {
        case .room(let entry, _), .leaving(let entry, _): return entry
        default: return nil
        }
    }

    func advance(_ now: Duration) { self.now = max(self.now, now) }

    func emit(_ event: ChatEvent) { actions.append(.event(event)) }

    // MARK: Inputs from the driver

    public func handleReply(_ id: Int, _ result: Result<HTTPResponse, ClientError>, now: Duration) {
        advance(now)
        if let single { single.handleReply(id, result, now: now); return drain() }
        guard id == iceRequest else { return }
        iceRequest = nil
        iceServersArrived(try? result.get())
        drain()
    }

    @discardableResult
    public func handlePeerActivity(now: Duration) -> Bool {
        advance(now)
        if let single {
            let moved = single.handlePeerActivity(now: now)
            drain()
            return moved || hasActions
        }
        var moved = false
        for pair in pairs where pair.handlePeerActivity(now: now) { moved = true }
        drain()
        return moved || hasActions
    }

    public func peerCreated(_ transport: any PeerTransport, request: Int, now: Duration) {
        advance(now)
        if let single { single.peerCreated(transport, request: request, now: now); return drain() }
        guard let (id, local) = peerRequests.removeValue(forKey: request), let pair = members[id]?.pair else {
            actions.append(.shutDownPeer(transport))
            return
        }
        pair.peerCreated(transport, request: local, now: now)
        drain()
    }

    public func peerCreationFailed(_ error: ClientError, request: Int, now: Duration) {
        advance(now)
        if let single { single.peerCreationFailed(error, now: now); return drain() }
        guard let (id, _) = peerRequests.removeValue(forKey: request) else { return }
        members[id]?.pair?.peerCreationFailed(error, now: now)
        drain()
    }

    public func signalingLeft(now: Duration) {
        advance(now)
        if let single { single.signalingLeft(now: now); return drain() }
        if case .leaving(_, let status) = phase { finish(status) }
        drain()
    }

    // MARK: Inputs from the user

    /// A line to every member (to one with `to`): each pair delivers it
    /// exactly once, now or when that member is back.
    public func send(line: String, to member: MemberID?, now: Duration) {
        advance(now)
        if let single { single.send(line: line, now: now); return drain() }
        guard case .room = phase else { return }
        if let member {
            members[member]?.pair?.send(line: line, now: now)
        } else {
            for pair in pairs { pair.send(line: line, now: now) }
        }
        drain()
    }

    /// End of input: every pair delivers what it holds and closes, then the
    /// group leaves the room.
    public func endOfInput(now: Duration) {
        advance(now)
        if let single { single.endOfInput(now: now); return drain() }
        inputEnded = true
        for pair in pairs { pair.endOfInput(now: now) }
        drain()
    }

    public func quit(now: Duration) {
        advance(now)
        if let single { single.quit(now: now); return drain() }
        inputEnded = true
        for pair in pairs { pair.quit(now: now) }
        drain()
    }

    public func leaveNow(now: Duration) {
        advance(now)
        if let single { single.leaveNow(now: now); return drain() }
        inputEnded = true
        for pair in pairs { pair.leaveNow(now: now) }
        leaveRoom(status: 0)
        drain()
    }

    var forcedExitStatus: Int32 = 130

    public func interrupt(status: Int32, now: Duration) {
        advance(now)
        if let single { single.interrupt(status: status, now: now); return drain() }
        switch phase {
        case .finished: return
        case .leaving: finish(status)
        default:
            inputEnded = true
            forcedExitStatus = status
            forcedExitAt = now + ChatSession.interruptLimit
            for pair in pairs { pair.interrupt(status: status, now: now) }
            leaveRoom(status: status)
        }
        drain()
    }

    // MARK: State for the user

    /// The other members, in the order they came: id, name, and their pair's phase.
    public var who: [(id: MemberID, name: String, phase: ChatPhase?)] {
        order.compactMap { id in members[id].map { ($0.id, $0.name, $0.pair?.phase) } }
    }

    public var phaseForPrompt: ChatPhase {
        if let single { return single.phase }
        switch phase {
        case .room: return pairs.contains { $0.phase.isConnected } ? .connected(path: "group") : .waitingForPeer
        case .leaving, .finished: return .leaving
        default: return .starting
        }
    }

    /// Lines typed that some member has not acknowledged yet.
    public var undeliveredMessages: Int {
        if let single { return single.undeliveredMessages }
        return pairs.map(\.undeliveredMessages).max() ?? 0
    }

    /// This member's display name.
    public var ownName: String {
        if let name = options.name { return name }
        return entry.map { Self.handle(for: $0.seat.memberID) } ?? "me"
    }

    /// The default name of a member: a short handle from its id, the same on every screen.
    static func handle(for id: MemberID) -> String { "guest-" + id.rawValue.prefix(4) }
}

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
/// Pairing by code stays the `ChatSession`'s: `create --group` makes a group
/// room, and any `join CODE` learns from the accept that the room is a
/// group's. That session then hands the room over (`SessionAction.enterGroup`)
/// and its driver runs a `GroupSession` from there; a two-person chat never
/// meets one. A member whose process crashed comes back the same way, with
/// the entry it had.
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
        /// In the group room (seated or not: pairs are made only from the server's seating frames).
        case room(GroupEntry)
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
        /// Its name arrived (or we stopped waiting for it): its lines show at once.
        var named = false
        /// Lines that came before its name, shown when the name comes or at `heldUntil`.
        var held: [String] = []
        var heldUntil: Duration?
        /// Away (its socket dropped): dropped from the group unless back by then.
        var awayUntil: Duration?
    }

    /// How long a member that dropped out (crashed, lost its network) keeps
    /// its place: what is typed waits for it meanwhile; after this its pair
    /// ends, so one member who never comes back holds nobody's lines for ever.
    public static let awayGrace: Duration = .seconds(120)

    /// How long a member's first lines wait for its name (its `ctl` and
    /// `chat` channels are separate streams; a browser may never send one).
    static let nameWait: Duration = .seconds(1)

    let options: Options
    var phase: Phase
    var now: Duration
    /// Each new pair's file transfers, configured as the driver's (where
    /// files go, `--auto-accept`, its wake); nil: no files in this chat.
    public var makeTransfers: (() -> FileTransfers)?
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
    /// The ids the driver sees, for peer requests and the ICE servers' HTTP request alike.
    var nextRequestID = 1
    var iceRequest: Int?
    var inputEnded = false
    var rejoinAt: Duration?
    var roomFullSince: Duration?
    var forcedExitAt: Duration?
    var serverLost = false
    /// Lines that never reached some member (it was behind, or gone): a script's exit status says so.
    var linesLost = 0

    /// `entry`: the room and seat pairing by code gave (or a crashed
    /// process's, to come back to).
    public init(entry: GroupEntry, options: Options, now: Duration,
                random: @escaping () -> any RandomNumberGenerator = { SystemRandomNumberGenerator() }) {
        self.options = options
        self.now = now
        makeRandom = random
        phase = .room(entry)
    }

    // MARK: Driving

    public func start(now: Duration) {
        advance(now)
        if case .room(let entry) = phase { enter(entry) }
        drain()
    }

    /// The room and seat, once in a group room (what a resumed process needs to come back).
    public var groupEntry: GroupEntry? { entry }

    public func pollAction() -> SessionAction? { actions.popFirst() }

    public var hasActions: Bool { !actions.isEmpty }

    public func pollTimeout() -> Duration? {
        switch phase {
        case .finished: return nil
        case .room, .leaving:
            let own = [rejoinAt, forcedExitAt].compactMap { $0 } + members.values.compactMap(\.heldUntil)
                + members.values.filter { $0.pair != nil }.compactMap(\.awayUntil)
            return (own + pairs.compactMap { $0.pollTimeout() }).min()
        }
    }

    public func handleTimeout(now: Duration) {
        advance(now)
        for pair in pairs { pair.handleTimeout(now: now) }
        if let at = rejoinAt, at <= now { rejoinAt = nil; joinRoom() }
        if let at = forcedExitAt, at <= now { forcedExitAt = nil; finish(forcedExitStatus) }
        for id in order where members[id]?.heldUntil.map({ $0 <= now }) == true { showHeld(id) }
        for id in order where members[id]?.pair != nil && members[id]?.awayUntil.map({ $0 <= now }) == true { dropAway(id) }
        drain()
    }

    public var isFinished: Bool {
        if case .finished = phase { return true }
        return false
    }

    var pairs: [ChatSession] { order.compactMap { members[$0]?.pair } }

    var entry: GroupEntry? {
        switch phase {
        case .room(let entry), .leaving(let entry, _): return entry
        default: return nil
        }
    }

    func advance(_ now: Duration) { self.now = max(self.now, now) }

    func emit(_ event: ChatEvent) { actions.append(.event(event)) }

    // MARK: Inputs from the driver

    public func handleReply(_ id: Int, _ result: Result<HTTPResponse, ClientError>, now: Duration) {
        advance(now)
        guard id == iceRequest else { return }
        iceRequest = nil
        iceServersArrived(try? result.get())
        drain()
    }

    @discardableResult
    public func handlePeerActivity(now: Duration) -> Bool {
        advance(now)
        var moved = false
        for pair in pairs where pair.handlePeerActivity(now: now) { moved = true }
        drain()
        return moved || hasActions
    }

    public func peerCreated(_ transport: any PeerTransport, request: Int, now: Duration) {
        advance(now)
        guard let (id, local) = peerRequests.removeValue(forKey: request), let pair = members[id]?.pair else {
            actions.append(.shutDownPeer(transport))
            return
        }
        pair.peerCreated(transport, request: local, now: now)
        drain()
    }

    public func peerCreationFailed(_ error: ClientError, request: Int, now: Duration) {
        advance(now)
        guard let (id, _) = peerRequests.removeValue(forKey: request) else { return }
        members[id]?.pair?.peerCreationFailed(error, now: now)
        drain()
    }

    public func signalingLeft(now: Duration) {
        advance(now)
        if case .leaving(_, let status) = phase { finish(status) }
        drain()
    }

    // MARK: Inputs from the user

    /// A line to every member (to one with `to`): each pair delivers it
    /// exactly once, now or when that member is back.
    public func send(line: String, to member: MemberID?, now: Duration) {
        advance(now)
        guard case .room = phase else { return }
        let to = member.map { [members[$0]?.pair].compactMap { $0 } } ?? pairs
        guard !to.isEmpty else {
            emit(.notSent(code: "nobody_here", message: "Nobody else is in the group room yet (or any more): that line was not sent."))
            return
        }
        // Per pair: a member too far behind misses the line (and is told), unless nobody
        // can take it; then every pair keeps it and the input waits (`wantsInput`).
        let keep = !to.contains { $0.outbox.takes(line) }
        for pair in to { pair.send(line: line, now: now, keep: keep) }
        drain()
    }

    /// Bytes typed that may wait for one member before it is behind
    /// (`Outbox.limit`): what a flooding script costs per member at most.
    public static let memberBacklog = 4 << 20

    /// False while no member could take another line (each is behind or
    /// full): the input is read again once one can.
    public var wantsInput: Bool {
        let live = pairs.filter { !$0.isFinished }
        return live.isEmpty || live.contains { $0.outbox.takes(bytes: ChatSession.maxMessageBytes) }
    }

    /// End of input: every pair delivers what it holds and closes, then the
    /// group leaves the room.
    public func endOfInput(now: Duration) {
        advance(now)
        inputEnded = true
        for pair in pairs { pair.endOfInput(now: now) }
        drain()
    }

    public func quit(now: Duration) {
        advance(now)
        inputEnded = true
        for pair in pairs { pair.quit(now: now) }
        drain()
    }

    public func leaveNow(now: Duration) {
        advance(now)
        inputEnded = true
        for pair in pairs { pair.leaveNow(now: now) }
        leaveRoom(status: 0)
        drain()
    }

    var forcedExitStatus: Int32 = 130

    public func interrupt(status: Int32, now: Duration) {
        advance(now)
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

    /// One line of `/who`.
    public struct MemberStatus: Sendable {
        public var id: MemberID
        /// As the member sent it: peer text, to be cleaned before it is shown.
        public var name: String
        /// Its pair's phase; nil once it left (or its pair failed).
        public var phase: ChatPhase?
        public var rttMilliseconds: Int?
        /// The code proved it (or the safety words were compared).
        public var verified: Bool
    }

    /// The other members, in the order they came.
    public var who: [MemberStatus] {
        order.compactMap { id in
            guard let member = members[id] else { return nil }
            let pair = member.pair
            return MemberStatus(id: id, name: member.name, phase: pair?.phase,
                                rttMilliseconds: pair?.connection?.connectionInfo?.rttMilliseconds,
                                verified: pair.map { $0.codeAuth.settled == .pake || $0.codeAuth.settled == .words } ?? false)
        }
    }

    /// How many are in the room now, this member included.
    public var presentCount: Int { 1 + order.filter { members[$0]?.present == true && members[$0]?.pair != nil }.count }

    public var phaseForPrompt: ChatPhase {
        switch phase {
        case .room: return pairs.contains { $0.phase.isConnected } ? .group(members: presentCount) : .waitingForPeer
        case .leaving, .finished: return .leaving
        default: return .starting
        }
    }

    /// Lines typed that some member has not acknowledged yet.
    public var undeliveredMessages: Int {
        return pairs.map(\.undeliveredMessages).max() ?? 0
    }

    /// The member with this name (as shown) or member id, among those with a pair.
    public func member(named name: String) -> MemberID? {
        order.first { id in members[id]?.pair != nil && (members[id]?.name == name || id.rawValue == name) }
    }

    /// The safety words of the connection with `member` (to compare aloud with that member).
    public func safetyWords(of member: MemberID) -> String? {
        guard let pair = members[member]?.pair else { return nil }
        return pair.codeAuth.heldConnected?.sas ?? pair.connection?.connectionInfo?.sas
    }

    /// `/verify ok NAME`: the person compared the safety words with that
    /// member aloud and they matched. A member the code did not prove is
    /// let through (each side accepts for itself, as in a two-person chat);
    /// false when there are no words to accept yet.
    @discardableResult
    public func verifiedByWords(member: MemberID, now: Duration) -> Bool {
        advance(now)
        guard let pair = members[member]?.pair, let sas = safetyWords(of: member) else { return false }
        let verified = pair.peerVerifiedByWords(sas: sas)
        drain()
        return verified
    }

    /// The memory held for the slowest member's undelivered lines (input back-pressure).

    /// This member's display name.
    public var ownName: String {
        if let name = options.name { return name }
        return entry.map { Self.handle(for: $0.seat.memberID) } ?? "me"
    }

    /// The default name of a member: a short handle from its id, the same on every screen.
    static func handle(for id: MemberID) -> String { "guest-" + id.rawValue.prefix(4) }
}

import HTTP1
import PAKE
import PeerConnection
import Signaling
import Wire

/// One chat's lifecycle as a sans-IO state machine (the str0m `Rtc` shape):
/// REST pairing by code (create, join or resume), the signaling room, the
/// WebRTC negotiation, delivery of every message exactly once, and the way
/// out (the user's leave, the peer leaving, a signal, a failure).
///
/// Replies, signaling events, peer events, typed lines and `now` go in;
/// `pollAction()` gives what to do (requests, signaling, peer connections,
/// events for the user, the exit status) and `pollTimeout()` the next
/// deadline. No clock, loop, socket or print inside: `ChatManager` drives it
/// on the event loop, and the tests drive it on a manual clock against the
/// real server cores and in-memory peers.
public final class ChatSession {
    public struct Options: Sendable {
        /// The server's `host[:port]`, for REST requests.
        public var authority: String
        /// The server's host, for the fallback `stun:HOST:3478`.
        public var host: String
        /// `--ice-server` entries, used with (or, for servers without the API, instead of) the server's.
        public var extraICEServers: [ICEServerEntry] = []
        /// Only relayed candidates (WebRTC `iceTransportPolicy: "relay"`).
        public var relayOnly = false
        /// When the peer leaves, stay until the user leaves (interactive);
        /// else end at once (scripts).
        public var staysAfterPeerLeft = false
        /// The server as the peer must name it (`--server URL`), when it is not the default.
        public var inviteServer: String?
        /// Printed once (not in `--json` mode) when pairing succeeded.
        public var notice: String?
        /// The secret part of the code the joiner typed (`123456-brave-bold`).
        public var codeSecret: CodeSecret?
        /// The code's six digits where the mode does not carry them: a
        /// `receive CODE` run again rejoins its saved room (`resumeRoom`) and
        /// proves the whole code again.
        public var codeLocator: String?
        /// The peer's certificate pinned by the saved session (see ChatSession+Pinning).
        public var pinnedPeer: PinnedPeer?
        /// Pin the peer's certificate (false for sessions saved before identities were kept).
        public var pinsPeer = true
        /// The saved session's name, for the sentence that tells how to accept a new peer.
        public var sessionName: String?
        /// Without STUN from the server, ask `stun:HOST:3478` (off on the LAN: host candidates only).
        public var fallbackSTUN = true
        /// A peer the code did not prove: refused unless a person or `--accept-unproven` accepts it (ChatSession+Trust).
        public var unproven: UnprovenPolicy = .refuse
        /// A peer back with a new certificate proves the code again (the PAKE
        /// runs on the new connection) instead of counting as unproven: `send`,
        /// whose receiver comes back as a new process (`chatcli receive CODE` again).
        public var reprovesByCode = false
        /// Say "You left the chat." when the user leaves (not for `send`/`receive`, which have no chat).
        public var announcesLeave = true
        /// `create --group`: a group room of at most this many members (3…8).
        public var groupMax: Int?

        public init(authority: String, host: String) {
            self.authority = authority
            self.host = host
        }
    }

    /// The peer in the room, as the server reports it.
    enum PeerPresence: Equatable {
        /// Not in the room with us yet (this process has not seen `room_ready`).
        case notYet
        /// In the room (`room_ready`, no departure since).
        case present
        /// Its socket dropped (`peer_disconnected`): it may come back, as a new process too (`chatcli resume`).
        case away
        /// It left the chat for good (`peer_left`, or its channel closed).
        case left
    }

    enum State: Equatable {
        case pairing
        case waitingForPeer(code: String)
        case joiningRoom(roomID: String)
        case inRoom(roomID: String, ready: Bool)
        /// The peer left for good; the user has not yet.
        case peerGone
        case leaving(status: Int32)
        case finished
    }

    public let mode: SessionMode
    public let deviceID: String
    package var options: Options
    var rng: any RandomNumberGenerator
    public internal(set) var now: Duration
    var state: State = .pairing
    var actions = Deque<SessionAction>()
    var timers = SessionTimers()
    var forcedExitStatus: Int32 = 130

    // Pairing and the room.
    var requests: [Int: Request] = [:]
    var nextRequestID = 1
    var pendingRetry: Retry?
    var iceServers: [ICEServerEntry] = []
    var retries = Backoff(base: .milliseconds(250), cap: .seconds(5))
    var transientFailures = 0
    var outageSince: Duration?
    var roomFullSince: Duration?
    /// The room's expiry as the server gave it, when known.
    public internal(set) var expires: String?
    /// The creator's seat in the group room it made (`create --group`).
    var groupSeat: GroupSeat?
    /// Where the peer is, as the room tells it (one value, not three flags).
    var presence = PeerPresence.notYet
    var serverLost = false
    var sessionClosed = false

    // The peer connection (PeerLeg: the connection and what belongs to it, in one value).
    var leg = PeerLeg.idle
    var peerRequests = 0
    /// The room's initiator role, from the last `room_ready`.
    var isRoomInitiator = false
    var pathDownSince: Duration?
    var restartBackoff = Backoff(base: .seconds(1), cap: .seconds(15))
    /// The last word from the peer while connecting, and the deadline once it was told it is not answering (ChatSession+Silence).
    var lastHeardFromPeer: Duration?
    var notAnsweringUntil: Duration?

    // Delivery.
    public internal(set) var outbox: Outbox
    var inbox = Inbox()
    var inputEnded = false
    public internal(set) var counters = ChatCounters()
    /// The code's PAKE and the peer's proven identity (ChatSession+PAKE).
    var codeAuth = CodeAuthentication()
    /// File transfers on this chat's connections (ChatSession+Transfers), when the driver offers them.
    public internal(set) var transfers: FileTransfers?
    /// A round of the transfers moved data since the driver last asked (`handlePeerActivity`).
    var transfersMoved = false

    public init(mode: SessionMode, options: Options, now: Duration, random: any RandomNumberGenerator = SystemRandomNumberGenerator()) {
        self.mode = mode
        self.options = options
        self.now = now
        var rng = random
        deviceID = mode.resumedDeviceID ?? Identifiers.deviceID(using: &rng)
        outbox = Outbox(epoch: Self.epoch(using: &rng))
        self.rng = rng
    }

    static func epoch(using rng: inout any RandomNumberGenerator) -> String {
        let value = UInt64.random(in: .min ... .max, using: &rng)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    // MARK: Driving

    public func pollAction() -> SessionAction? {
        actions.popFirst()
    }

    public func pollTimeout() -> Duration? { timers.next }

    public var hasActions: Bool { !actions.isEmpty }

    public func handleTimeout(now: Duration) {
        advance(now)
        while let timer = timers.popDue(now: now) { fire(timer) }
        afterInput()
    }

    public var isFinished: Bool { state == .finished }

    func advance(_ now: Duration) { self.now = max(self.now, now) }

    func emit(_ event: ChatEvent) { actions.append(.event(event)) }

    /// After every input: owed acks and hellos go out, delivery is checked,
    /// and file transfers take their turn.
    func afterInput() {
        defer { serviceTransfers() }
        guard let peer, peer.isOpen else { return }
        if peer.isControlOpen {
            if let hello = pendingHello, codeAuth.allowsChat {
                pendingHello = nil
                try? peer.sendControl(hello.text)
            }
            if let ack = inbox.takeAck() { try? peer.sendControl(ack.text) }
            while codeAuth.allowsChat, let gap = outbox.nextUnsentGap {
                do { try peer.sendControl(gap.text) } catch { break }
                outbox.gapSent()
            }
        }
        if !peerSpeaksDelivery {
            outbox.acknowledgeTransport(count: peer.chatMessagesAcknowledged)
            reportCatchUp()
        }
        // The peer left and its last acknowledgements came: nothing to wait for.
        if timers.isSet(.peerLeftGrace), outbox.isEmpty { peerLeft() }
        finishWhenDelivered()
    }

    // MARK: Inputs from the user

    /// The largest chat message (`a=max-message-size`).
    public static let maxMessageBytes = 262_144

    /// A line from the user: delivered exactly once, now or when the peer is back.
    public func send(line: String, now: Duration) { send(line: line, now: now, keep: false) }

    /// `keep`: kept for the peer even past a group's limit (`Outbox.append`).
    public func send(line: String, now: Duration, keep: Bool) {
        advance(now)
        guard line.utf8.count <= Self.maxMessageBytes else {
            emit(.notSent(code: "message_too_large",
                          message: "A message of \(line.utf8.count) bytes was not sent: the limit is \(Self.maxMessageBytes) bytes."))
            return
        }
        guard state != .peerGone, presence != .left else {
            emit(.notSent(code: "peer_left", message: "Your peer left the chat; nothing more can be sent."))
            return
        }
        let wasBehind = outbox.isBehind
        if !outbox.append(line, keep: keep) {
            if !wasBehind { emit(.peerBehind(limitBytes: outbox.limit ?? 0)) }
            return
        }
        counters.countSent(line)
        flushOutbox()
        afterInput()
    }

    /// End of the user's input (scripts): deliver everything, then leave (exit 0).
    public func endOfInput(now: Duration) {
        advance(now)
        inputEnded = true
        if state == .peerGone { finish(outbox.isEmpty ? 0 : 1); return }
        finishWhenDelivered()
    }

    /// `/quit` and Ctrl-D: once everything typed has reached the peer, leave;
    /// with nothing undelivered (or no peer to deliver to), leave now.
    public func quit(now: Duration) {
        advance(now)
        inputEnded = true
        switch state {
        case .peerGone: finish(outbox.isEmpty ? 0 : 1)
        case .inRoom, .joiningRoom:
            if outbox.isEmpty { leave(status: 0) } else { finishWhenDelivered() }
        default: leave(status: 0)
        }
    }

    /// `/leave`: leave now, whatever is undelivered (exit 0).
    public func leaveNow(now: Duration) {
        advance(now)
        if state == .peerGone { finish(0); return }
        leave(status: 0)
    }

    /// SIGINT (130) or SIGTERM (143): leave the room, and exit within
    /// `interruptLimit` whatever the network does.
    public static let interruptLimit: Duration = .milliseconds(800)

    public func interrupt(status: Int32, now: Duration) {
        advance(now)
        switch state {
        case .finished: return
        case .leaving, .peerGone: finish(status)
        default:
            emit(.progress("Interrupted; leaving."))
            forcedExitStatus = status
            timers.set(.forcedExit, at: now + Self.interruptLimit)
            leave(status: status)
        }
    }

    /// Sends on the `ctl` channel; false when it is not open.
    @discardableResult
    public func sendControl(_ message: ControlMessage) -> Bool {
        guard let peer, peer.isControlOpen, codeAuth.allowsChat else { return false }
        do { try peer.sendControl(message.text) } catch { return false }
        return true
    }

    // MARK: State for the user

    public var phase: ChatPhase {
        switch state {
        case .pairing: return .starting
        case .waitingForPeer: return .waitingForPeer
        case .peerGone: return .peerLeft
        case .leaving, .finished: return .leaving
        case .joiningRoom, .inRoom:
            if presence == .away { return .peerAway }
            // In the room alone (a resumed chat whose peer is not back, or left meanwhile): not connecting to anyone.
            if case .inRoom(_, false) = state, presence != .present, case .none = leg { return .waitingForPeer }
            guard let peer, peer.isOpen else { return notAnsweringUntil != nil ? .peerNotAnswering : .connecting }
            if codeAuth.awaiting != nil { return .unproven }
            guard !peer.isPathDown, let path = peer.selectedPath else { return .pathLost }
            return .connected(path: path)
        }
    }

    public var connection: (any PeerTransport)? { peer }
    public var undeliveredMessages: Int { outbox.undelivered }
    var isConnected: Bool { peer?.isOpen ?? false }
    var currentRoomID: String? {
        switch state {
        case .joiningRoom(let id), .inRoom(let id, _): return id
        default: return nil
        }
    }
}

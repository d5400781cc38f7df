import ICE
import Runtime
import Signaling

/// Orchestrates one chat session, as Inviso's ChatManager does: REST pairing
/// by code (create or join), then the signaling room, and the way out
/// (the user's leave, the peer leaving, Ctrl-C, or a failure), reporting each
/// step as a `ChatEvent`. The session ends by calling `onFinish` with the
/// process exit status.
public final class ChatManager {
    public enum Mode: Equatable, Sendable {
        case create(expiresIn: Int)
        case join(code: String)
        /// A saved creator's session: keep waiting for the peer with the same code and device id.
        case resumeWaiting(code: String, deviceID: String, expires: String?)
        /// A saved accepted session: rejoin its room.
        case resumeRoom(roomID: String, deviceID: String)
    }

    enum State {
        case pairing
        case waitingForPeer(code: String)
        case joiningRoom(roomID: String)
        case inRoom(roomID: String, ready: Bool)
        case leaving
        case finished
    }

    let loop: EventLoop
    let http: HTTPClient
    let signaling: SignalingClient
    let printer: EventPrinter
    let mode: Mode
    var rng = SystemRandomNumberGenerator()
    var state: State = .pairing
    let deviceID: String
    var inputEnded = false
    var retries = Backoff(base: .milliseconds(250), cap: .seconds(5))
    var transientFailures = 0
    var roomFullSince: Instant?
    var outageSince: Instant?
    var peerGone = false
    /// The peer's socket dropped; it may come back as a new process (`chatcli resume`).
    var peerRejoining = false
    var peer: PeerLink?
    var earlyCandidates: [String?] = []
    var outbox: [String] = []
    var iceServers: [SocketAddress] = []
    var turnServers: [ICETURNServer] = []
    var closingPeer: PeerLink?
    /// Offer and use only relayed candidates (WebRTC `iceTransportPolicy: "relay"`).
    public var relayOnly = false
    /// `--hard-nat-probing`: birthday-paradox port probing (PeerLink+Probing).
    public var hardNATProbing = false
    var finishTimer: Timer?
    var pathDownSince: Instant?
    var restartTimer: Timer?
    var restartBackoff = Backoff(base: .seconds(1), cap: .seconds(15))
    /// Addresses and default routes (see ChatManager+NetworkChange).
    var networkWatcher: NetworkWatcher?
    /// `--ice-server` URLs, used with (or, for servers without the API, instead of) the server's.
    public var extraICEServers: [ICEServerEntry] = []
    public var onFinish: ((Int32) -> Void)?
    /// Printed once (not in `--json` mode) when pairing succeeded.
    public var notice: String?
    /// Lifecycle changes worth saving (pending, accepted, closed); see ChatManager+Session.
    public var onSession: ((SessionUpdate) -> Void)?

    public init(loop: EventLoop, connector: Connector, printer: EventPrinter, mode: Mode) {
        self.loop = loop
        self.http = HTTPClient(connector: connector)
        self.signaling = SignalingClient(connector: connector)
        self.printer = printer
        self.mode = mode
        self.deviceID = mode.resumedDeviceID ?? Identifiers.deviceID(using: &rng)
        signaling.onEvent = { [weak self] event in self?.handle(event) }
    }

    public func start() {
        followNetworkChanges()
        switch mode {
        case .create(let expiresIn): createRoom(expiresIn: expiresIn, attemptsLeft: 20)
        case .join(let code): acceptCode(code)
        case .resumeWaiting, .resumeRoom: resume()
        }
    }

    /// End of the user's input: once connected, send what is queued, wait
    /// until the peer's SCTP has acknowledged all of it, then leave (exit 0).
    public func endOfInput() {
        inputEnded = true
        finishWhenDelivered()
    }

    /// Ctrl-C or SIGTERM: leave the room if in one, then exit 130.
    public func interrupt() {
        switch state {
        case .finished: return
        case .leaving: finish(130)
        default:
            printer.emit(.progress("Interrupted; leaving."))
            leave(status: 130)
        }
    }

    // MARK: REST pairing

    private func createRoom(expiresIn: Int, attemptsLeft: Int) {
        let code = Identifiers.joinCode(using: &rng)
        let request = RoomAPI.createRequest(code: code, deviceID: deviceID, expiresIn: expiresIn, authority: http.authority)
        http.send(request) { [weak self] result in
            guard let self, case .pairing = self.state else { return }
            switch result {
            case .failure(let error): self.fail(error)
            case .success(let response):
                if RoomAPI.isTransient(response), self.retryTransient({ self.createRoom(expiresIn: expiresIn, attemptsLeft: attemptsLeft) }) {
                    return
                }
                switch RoomAPI.interpretCreate(response) {
                case .created(let expires):
                    self.printer.emit(.code(code, expires: expires))
                    self.onSession?(.pending(code: code, deviceID: self.deviceID, expires: expires))
                    self.showNotice()
                    self.printer.emit(.waiting)
                    self.state = .waitingForPeer(code: code)
                    self.check(code: code, longPoll: true)
                case .codeInUse where attemptsLeft > 1:
                    self.createRoom(expiresIn: expiresIn, attemptsLeft: attemptsLeft - 1)
                case .codeInUse:
                    self.fail(.server(status: 409, code: "joinid_in_use", action: "find a free code"))
                case .failed(let error):
                    self.fail(error)
                }
            }
        }
    }

    /// Waits for acceptance: long polls where the server supports `?wait`,
    /// otherwise (an immediate 204, as Inviso answers) polls every 2 s.
    func check(code: String, longPoll: Bool) {
        let wait = longPoll ? 25 : nil
        let started = loop.now
        let request = RoomAPI.checkRequest(code: code, deviceID: deviceID, wait: wait, authority: http.authority)
        http.send(request, timeout: .seconds(40)) { [weak self] result in
            guard let self, case .waitingForPeer = self.state else { return }
            switch result {
            case .failure(let error):
                // A restarting server keeps its rooms: ride out the outage.
                if !self.retryOutage(error, { self.check(code: code, longPoll: longPoll) }) { self.fail(error) }
            case .success(let response):
                self.outageSince = nil
                self.retries.reset()
                if RoomAPI.isTransient(response), self.retryTransient({ self.check(code: code, longPoll: longPoll) }) {
                    return
                }
                self.transientFailures = 0
                switch RoomAPI.interpretCheck(response) {
                case .accepted(let roomID):
                    self.onSession?(.accepted(roomID: roomID))
                    self.joinRoom(roomID)
                case .pending:
                    let answeredAtOnce = self.loop.now - started < .seconds(1)
                    if longPoll && !answeredAtOnce {
                        self.check(code: code, longPoll: true)
                    } else {
                        self.loop.schedule(after: .seconds(2)) { [weak self] in self?.check(code: code, longPoll: longPoll && !answeredAtOnce) }
                    }
                case .failed(let error):
                    self.fail(error)
                }
            }
        }
    }

    private func acceptCode(_ code: String) {
        let request = RoomAPI.acceptRequest(code: code, deviceID: deviceID, authority: http.authority)
        http.send(request) { [weak self] result in
            guard let self, case .pairing = self.state else { return }
            switch result {
            case .failure(let error): self.fail(error)
            case .success(let response):
                // Never repeat an accept (Inviso overwrites the pairing on a second one).
                switch RoomAPI.interpretAccept(response) {
                case .accepted(let roomID):
                    self.onSession?(.joined(code: code, roomID: roomID, deviceID: self.deviceID))
                    self.showNotice()
                    self.joinRoom(roomID)
                case .failed(let error): self.fail(error)
                }
            }
        }
    }

    /// Retries while the server is unreachable, for up to two minutes;
    /// false once it should give up.
    private func retryOutage(_ error: ClientError, _ again: @escaping () -> Void) -> Bool {
        switch error {
        case .unreachable, .connectionLost, .timeout: break
        default: return false
        }
        let now = loop.now
        if outageSince == nil {
            outageSince = now
            printer.emit(.progress("Lost the server (\(error.message)); retrying."))
        }
        guard let since = outageSince, now - since < .seconds(120) else { return false }
        loop.schedule(after: retries.next(using: &rng), again)
        return true
    }

    /// Retries a 5xx a few times with backoff; false once it should give up.
    private func retryTransient(_ again: @escaping () -> Void) -> Bool {
        transientFailures += 1
        guard transientFailures <= 5 else { return false }
        loop.schedule(after: retries.next(using: &rng), again)
        return true
    }

    // MARK: Signaling room

    func joinRoom(_ roomID: String) {
        state = .joiningRoom(roomID: roomID)
        fetchICEServers { [weak self] in
            self?.http.close()
            self?.signaling.start()
        }
    }

    private func handle(_ event: SignalingEvent) {
        switch event {
        case .open:
            switch state {
            case .joiningRoom(let roomID), .inRoom(let roomID, _):
                signaling.send(.joinRoom(roomId: roomID))
            default: break
            }
        case .lost(let error, let retryIn):
            if case .inRoom(let roomID, _) = state { state = .joiningRoom(roomID: roomID) }
            printer.emit(.progress("Lost the server (\(error.message)); reconnecting in \(retryIn.milliseconds) ms."))
        case .failed(let error):
            fail(error)
        case .message(let message):
            handle(message)
        }
    }

    func handle(_ message: ServerMessage) {
        switch message {
        case .roomJoined(let roomID, _, _, _):
            // `ready` here only announces the room_ready that follows.
            roomFullSince = nil
            state = .inRoom(roomID: roomID, ready: false)
        case .roomReady(let roomID, _, let isInitiator):
            let wasReady: Bool
            if case .inRoom(_, let r) = state { wasReady = r } else { wasReady = false }
            state = .inRoom(roomID: roomID, ready: true)
            if !wasReady { printer.emit(.peerJoined) }
            roomReady(isInitiator: isInitiator)
        case .roomFull:
            // Inviso keeps a dead socket's seat for a while: retry with backoff.
            let now = loop.now
            if roomFullSince == nil { roomFullSince = now }
            if let since = roomFullSince, now - since > .seconds(60) {
                fail(.roomFull)
                return
            }
            guard let roomID = currentRoomID else { return }
            loop.schedule(after: retries.next(using: &rng)) { [weak self] in self?.signaling.send(.joinRoom(roomId: roomID)) }
        case .peerLeft:
            peerLeft()
        case .relayed(let type, _, _, let payload):
            relayed(type: type, payload: .object(payload))
        case .peerDisconnected:
            peerRejoining = true
            if case .inRoom(let roomID, _) = state { state = .inRoom(roomID: roomID, ready: false) }
            printer.emit(.progress("Your peer lost its connection; waiting for them to come back."))
        case .error(let code):
            if code == .roomNotFound {
                fail(.roomNotFound)
            } else {
                printer.emit(.progress("The server reported: \(code.rawValue)"))
            }
        default:
            break
        }
    }

    /// The peer left: through signaling (`peer_left`), or by closing the
    /// channel (SCTP SHUTDOWN / close_notify), which arrives even while
    /// signaling is reconnecting. Reported once.
    func peerLeft() {
        guard !peerGone else { return }
        peerGone = true
        printer.emit(.peerLeft)
        // Exit 0 only if everything we queued reached the peer.
        leave(status: outbox.isEmpty && (peer?.connection.isFullyAcknowledged ?? true) ? 0 : 1)
    }

    var currentRoomID: String? {
        switch state {
        case .joiningRoom(let id), .inRoom(let id, _): return id
        default: return nil
        }
    }

    func showNotice() {
        if let notice, !printer.jsonMode { printer.emit(.progress(notice)) }
        notice = nil
    }

    // MARK: Endings

    func leave(status: Int32) {
        switch state {
        case .finished, .leaving: return
        case .joiningRoom, .inRoom:
            if status == 0 && !peerGone { printer.emit(.progress("You left the chat.")) }
            state = .leaving
            onSession?(.closed)
            // P2P first, then the room, so the peer sees no renegotiation mid-teardown.
            closePeer()
            signaling.leave { [weak self] in self?.finish(status) }
        default:
            finish(status)
        }
    }

    func fail(_ error: ClientError) {
        if case .finished = state { return }
        printer.emit(.error(error))
        if error.meansSessionEnded { onSession?(.closed) }
        signaling.stop()
        finish(1)
    }

    private func finish(_ status: Int32) {
        if case .finished = state { return }
        state = .finished
        finishTimer?.cancel()
        restartTimer?.cancel()
        networkWatcher?.close()
        peer?.shutDown()
        closingPeer?.shutDown()
        http.close()
        signaling.stop()
        printer.emit(.closed)
        onFinish?(status)
    }
}

@testable import ChatClient
import HTTP1
import PAKE
import PeerConnection
import Signaling
import SignalingServer
import TestSupport

/// A chat world on a manual clock: the real server cores (`RESTRouter`,
/// `SignalingHub` over an in-memory room store), `ChatSession`s as the
/// clients, and `FakePeer`s as their connections. Every delivery is an
/// event at a time; `run(for:)` steps through them, and through each
/// session's deadlines, in order. No sockets, no threads, no real time.
final class World {
    var now: Duration = .seconds(1000)
    private var queue: [(at: Duration, seq: Int, run: () -> Void)] = []
    private var seq = 0
    let store = InMemoryRoomStore()
    var registry: RoomRegistry
    var router: RESTRouter
    var hub: SignalingHub
    var serverUp = true
    var clients: [Client] = []
    var waiters: [LongPollToken: (Client, Int)] = [:]
    var nextConnection: UInt64 = 1
    var nextAssociation = 0
    /// A fresh `a=tls-id` for a new connection.
    func newAssociation() -> Int {
        nextAssociation += 1
        return nextAssociation
    }
    let rng: SeededRandom
    /// One-way delays.
    var serverDelay: Duration = .milliseconds(5)
    var peerDelay: Duration = .milliseconds(10)
    /// A server in the middle: it terminates each side's DTLS with its own
    /// certificate and relays the channels unchanged.
    var interceptor: String?

    init(seed: UInt64 = 1) throws {
        rng = SeededRandom(seed: seed)
        registry = try RoomRegistry(store: store, random: SeededRandom(seed: seed &+ 1))
        router = RESTRouter(registry: registry, random: SeededRandom(seed: seed &+ 2))
        hub = SignalingHub(random: SeededRandom(seed: seed &+ 3)) { _, _ in true }
        hub = makeHub(seed: seed &+ 3)
    }

    private func makeHub(seed: UInt64) -> SignalingHub {
        SignalingHub(random: SeededRandom(seed: seed)) { [unowned self] id, now in self.registry.isJoinable(id, now: now) }
    }

    var unixNow: UnixTime { UnixTime(milliseconds: 1_790_000_000_000 + now.milliseconds) }

    func at(_ delay: Duration, _ run: @escaping () -> Void) {
        seq += 1
        queue.append((now + delay, seq, run))
    }

    // MARK: Clients

    @discardableResult
    func start(_ name: String, _ mode: SessionMode, plain: Bool = false, interactive: Bool = false,
               certificate: String? = nil, pinnedPeer: PinnedPeer? = nil, pinsPeer: Bool = true) -> Client {
        var options = ChatSession.Options(authority: "chat.test", host: "chat.test")
        var mode = mode
        // A code as printed (`123456-brave-bold`): the digits go to the server,
        // the secret to the PAKE. A plain peer (a browser) only knows the digits.
        if case .join(let code) = mode, code.count > 6 {
            mode = .join(code: String(code.prefix(6)))
            if !plain { options.codeSecret = CodeSecret(text: String(code.dropFirst(7))) }
        }
        options.staysAfterPeerLeft = interactive
        options.pinnedPeer = pinnedPeer
        options.pinsPeer = pinsPeer
        let session = ChatSession(mode: mode, options: options, now: now, random: SeededRandom(seed: UInt64(clients.count + 100)))
        let client = Client(world: self, name: name, session: session, plain: plain, certificate: certificate)
        clients.append(client)
        session.start(now: now)
        client.process()
        return client
    }

    /// `kill -9`: its connections go silent, its socket drops.
    func crash(_ client: Client) {
        client.crashed = true
        for peer in client.peers { peer.dead = true }
        if let connection = client.connection {
            client.connection = nil
            route(hub.disconnect(connection))
        }
        // The survivor's consent checks notice within seconds.
        for peer in client.peers {
            guard let other = peer.other, !other.closed else { continue }
            at(.seconds(5)) { [weak other] in
                guard let other, !other.closed, !other.dead, other.other?.dead == true, !other.pathDown else { return }
                other.pathDown = true
                other.owner(in: self)?.deliver(.disconnected(.ice(.consentExpired(seconds: 5))), to: other)
            }
        }
    }

    func client(named name: String) -> Client? { clients.first { $0.name == name && !$0.crashed } }

    // MARK: Running

    func run(for duration: Duration) { run(until: now + duration) }

    func run(until end: Duration) {
        while true {
            let sessionDue = clients.filter { !$0.crashed }.compactMap { c in c.session.pollTimeout().map { (c, $0) } }
                .min { $0.1 < $1.1 }
            let eventDue = queue.min { ($0.at, $0.seq) < ($1.at, $1.seq) }
            let next = [sessionDue?.1, eventDue?.at].compactMap { $0 }.min()
            guard let next, next <= end else { break }
            now = max(now, next)
            if let event = eventDue, event.at <= next {
                queue.removeAll { $0.seq == event.seq }
                event.run()
            } else if let (client, _) = sessionDue {
                client.session.handleTimeout(now: now)
                client.process()
            }
            for (token, response) in router.pollCompletedLongPolls() { answerLongPoll(token, response) }
        }
        now = max(now, end)
    }

    /// Runs until `condition` holds (checked after each step), at most `limit`.
    @discardableResult
    func run(until condition: () -> Bool, limit: Duration = .seconds(300)) -> Bool {
        let end = now + limit
        while !condition() {
            guard now < end else { return false }
            run(for: .milliseconds(1))
        }
        return true
    }

    // MARK: The server

    func rest(_ request: HTTPRequest, id: Int, from client: Client) {
        at(serverDelay) { [self] in
            guard serverUp else {
                client.reply(id, .failure(.unreachable(server: "http://chat.test", reason: "connection refused")))
                return
            }
            switch router.handle(request, clientAddress: "192.0.2.\(clients.firstIndex { $0 === client } ?? 0)", now: unixNow) {
            case .respond(let response):
                at(serverDelay) { client.reply(id, .success(response)) }
            case .longPoll(let token, let deadline):
                waiters[token] = (client, id)
                at(.milliseconds(deadline.milliseconds - unixNow.milliseconds)) { [self] in
                    if let response = router.longPollDeadlinePassed(token, now: unixNow) { answerLongPoll(token, response) }
                }
            }
        }
    }

    private func answerLongPoll(_ token: LongPollToken, _ response: HTTPResponse) {
        guard let (client, id) = waiters.removeValue(forKey: token) else { return }
        at(serverDelay) { client.reply(id, .success(response)) }
    }

    func connectSignaling(_ client: Client) {
        at(serverDelay) { [self] in
            guard !client.crashed, client.wantsSignaling, client.connection == nil else { return }
            guard serverUp else {
                client.signalingEvent(.lost(.unreachable(server: "http://chat.test", reason: "refused"), retryIn: .seconds(1)))
                at(.seconds(1)) { self.connectSignaling(client) }
                return
            }
            let connection = ConnectionID(nextConnection)
            nextConnection += 1
            client.connection = connection
            route(hub.connect(connection))
        }
    }

    func signal(_ message: ClientMessage, from client: Client) {
        guard let connection = client.connection else { return }   // dropped while down, as the real client does
        at(serverDelay) { [self] in
            guard client.connection == connection else { return }
            route(hub.receive(connection, text: message.json.serialized, now: unixNow))
        }
    }

    func route(_ outbound: [Outbound]) {
        for out in outbound {
            guard let client = clients.first(where: { $0.connection == out.connection && !$0.crashed }) else { continue }
            at(serverDelay) { [self] in
                guard client.connection == out.connection else { return }
                switch out.message {
                case .connected(let id): client.signalingEvent(.open(clientID: id))
                case .leftRoom where client.leaving:
                    client.connection = nil
                    route(hub.disconnect(out.connection))
                    client.session.signalingLeft(now: now)
                    client.process()
                default: client.signalingEvent(.message(out.message))
                }
            }
        }
    }

    /// The server goes down (its sockets drop) and comes back after `downFor`
    /// with its rooms (SQLite) but no sockets.
    func restartServer(downFor: Duration) {
        serverUp = false
        let dropped = clients.filter { $0.connection != nil && !$0.crashed }
        for client in dropped {
            client.connection = nil
            client.signalingEvent(.lost(.connectionLost("the server closed the connection"), retryIn: .milliseconds(500)))
            at(.milliseconds(500)) { self.connectSignaling(client) }
        }
        hub = makeHub(seed: UInt64(now.milliseconds))
        waiters = [:]
        at(downFor) { [self] in
            serverUp = true
            registry = try! RoomRegistry(store: store, random: SeededRandom(seed: 9))
            router = RESTRouter(registry: registry, random: SeededRandom(seed: 10))
        }
    }

    // MARK: Peers

    func offered(_ answerer: FakePeer, by cert: String, association: Int) {
        if let other = answerer.other, other.certificate == cert, other.association == association {
            // An ICE restart on the live connection.
            if answerer.pathDown || other.pathDown { reconnect(answerer, other) }
            return
        }
        answerer.other = clients.flatMap(\.peers).last { $0.association == association && $0.isOfferer && !$0.closed && !$0.dead }
    }

    func answered(_ offerer: FakePeer, by association: Int) {
        guard let answerer = clients.flatMap(\.peers).last(where: { $0.association == association && $0.other === offerer && !$0.closed }) else {
            return
        }
        offerer.other = answerer
        if offerer.isOpen { return }
        at(.milliseconds(20)) { [self] in
            for peer in [offerer, answerer] where !peer.closed && !peer.dead {
                peer.isOpen = true
                peer.owner(in: self)?.deliver(.connected(peer.info), to: peer)
            }
            guard offerer.speaksControl else { return }
            for peer in [offerer, answerer] where !peer.closed && !peer.dead {
                peer.isControlOpen = true
                peer.owner(in: self)?.deliver(.controlOpen, to: peer)
            }
        }
    }

    private func reconnect(_ a: FakePeer, _ b: FakePeer) {
        at(.milliseconds(20)) { [self] in
            for peer in [a, b] where !peer.dead && !peer.closed {
                peer.pathDown = false
                peer.owner(in: self)?.deliver(.reconnected(peer.info), to: peer)
            }
            for (peer, event) in stalled where !peer.dead { transmit(from: peer, event) }
            stalled = []
        }
    }

    var stalled: [(FakePeer, PeerConnectionEvent)] = []

    /// The ordered, reliable channels: delivered after `peerDelay`, the
    /// chat ack back after another; lost for good if the peer's process died.
    func transmit(from peer: FakePeer, _ event: PeerConnectionEvent) {
        guard let other = peer.other, !other.dead else { return }
        if peer.pathDown || other.pathDown { stalled.append((peer, event)); return }
        if case .controlMessage = event, peer.owner(in: self)?.plain == true || other.owner(in: self)?.plain == true { return }
        at(peerDelay) { [self] in
            guard !other.dead, !other.closed || event == .closed else { return }
            if event == .closed { other.closed = true; other.isOpen = false }
            other.owner(in: self)?.deliver(event, to: other)
            guard case .message = event else { return }
            at(peerDelay) { [self] in
                guard !peer.dead else { return }
                peer.chatMessagesAcknowledged += 1
                peer.owner(in: self)?.progressed(peer)
            }
        }
    }
}

extension FakePeer {
    func owner(in world: World) -> Client? { world.clients.first { $0.peers.contains { $0 === self } && !$0.crashed } }
}

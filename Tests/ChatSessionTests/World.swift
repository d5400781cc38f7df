@testable import ChatClient
import HTTP1
import PAKE
import PeerConnection
import SCTP
import Signaling
import SignalingServer
import TestSupport
import Wire

/// A chat world on a manual clock: the real server cores (`RESTRouter`,
/// `SignalingHub` over an in-memory room store), `ChatSession`s as the
/// clients, and `FakePeer`s as their connections. Every message between
/// them crosses TestSupport's `NetworkEmulator` (the one network model of
/// the tests) on a `ReliableStream`; the rest (a long poll's deadline, a
/// server coming back) is an event at a time. `run(for:)` steps through
/// the events, the arrivals and each session's deadlines, in order: the
/// world's clock drives the emulator's. No sockets, no threads, no real time.
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
    /// Hosts are "server" and each process (`host(_:)`).
    let net: NetworkEmulator<String>
    static let server = "server"
    /// Every client↔server path (HTTP and WebSocket), each way.
    var serverLink = LinkConditions(delay: .milliseconds(5)) {
        didSet { for client in clients { setServerPaths(client) } }
    }
    /// Every peer-to-peer path (the data channels), each way.
    var peerLink: LinkConditions {
        get { net.conditions }
        set { net.conditions = newValue }
    }
    private var hosts: [ObjectIdentifier: String] = [:]
    private var streams: [Int: ReliableStream] = [:]
    private var streamIDs: [String: Int] = [:]
    var nextPeerSerial = 0
    /// A server in the middle: it terminates each side's DTLS with its own
    /// certificate and relays the channels unchanged.
    var interceptor: String?
    /// False: the server ignores `"group"` in `create`, as one without group rooms (Inviso) does.
    var groupRooms = true
    /// With `interceptor`: only the connections of these clients (by name) are intercepted.
    var interceptedMembers: Set<String>?

    init(seed: UInt64 = 1) throws {
        net = NetworkEmulator(seed: seed, conditions: LinkConditions(delay: .milliseconds(10)), now: now)
        registry = try RoomRegistry(store: store, random: SeededRandom(seed: seed &+ 1))
        router = RESTRouter(registry: registry, random: SeededRandom(seed: seed &+ 2))
        hub = SignalingHub(random: SeededRandom(seed: seed &+ 3)) { _, _ in true }
        hub = makeHub(seed: seed &+ 3)
    }

    private func makeHub(seed: UInt64) -> SignalingHub {
        SignalingHub(random: SeededRandom(seed: seed),
                     roomIsJoinable: { [unowned self] id, now in self.registry.isJoinable(id, now: now) },
                     roster: { [unowned self] id, now in self.registry.roster(id: id, now: now) },
                     endGroup: { [unowned self] id, now in try? self.registry.endGroup(id: id, now: now) })
    }

    var unixNow: UnixTime { UnixTime(milliseconds: 1_790_000_000_000 + now.milliseconds) }

    func at(_ delay: Duration, _ run: @escaping () -> Void) {
        seq += 1
        queue.append((now + delay, seq, run))
    }

    // MARK: Clients

    @discardableResult
    func start(_ name: String, _ mode: SessionMode, plain: Bool = false, interactive: Bool = false,
               certificate: String? = nil, pinnedPeer: PinnedPeer? = nil, pinsPeer: Bool = true,
               unproven: UnprovenPolicy = .accept, code: String? = nil, reprovesByCode: Bool = false) -> Client {
        var options = ChatSession.Options(authority: "chat.test", host: "chat.test")
        var mode = mode
        // A code as printed (`123456-brave-bold`): the digits go to the server,
        // the secret to the PAKE. A plain peer (a browser) only knows the digits.
        if case .join(let code) = mode, code.count > 6 {
            mode = .join(code: String(code.prefix(6)))
            if !plain { options.codeSecret = CodeSecret(text: String(code.dropFirst(7))) }
        }
        // `receive CODE` run again: the whole code for a mode that does not carry it.
        if let code {
            options.codeLocator = String(code.prefix(6))
            options.codeSecret = CodeSecret(text: String(code.dropFirst(7)))
        }
        options.reprovesByCode = reprovesByCode
        options.staysAfterPeerLeft = interactive
        options.pinnedPeer = pinnedPeer
        options.pinsPeer = pinsPeer
        // Most scenarios are about delivery, not trust: an unproven peer is accepted as with --accept-unproven.
        options.unproven = unproven
        let session = ChatSession(mode: mode, options: options, now: now, random: SeededRandom(seed: UInt64(clients.count + 100)))
        return admit(Client(world: self, name: name, core: session, plain: plain, certificate: certificate))
    }

    /// A new process in the world: on the network, started.
    private func admit(_ client: Client) -> Client {
        hosts[ObjectIdentifier(client)] = "\(client.name)#\(clients.count)"
        clients.append(client)
        setServerPaths(client)
        client.core.start(now: now)
        client.process()
        return client
    }

    /// A member of a group room: `create --group` (`max` members), `join CODE`
    /// (pairing is a ChatSession's, which hands the room to a GroupSession,
    /// as in the binary), or a crashed member's `entry` to come back to.
    enum GroupStart {
        case create(max: Int)
        case join(code: String)
        case rejoin(GroupEntry)
    }

    @discardableResult
    func startGroup(_ name: String, _ how: GroupStart, unproven: UnprovenPolicy = .refuse,
                    files: (() -> FileTransfers)? = nil) -> Client {
        var options = ChatSession.Options(authority: "chat.test", host: "chat.test")
        options.unproven = unproven
        var seed = UInt64(clients.count + 500)
        let random: () -> any RandomNumberGenerator = {
            seed += 1000
            return SeededRandom(seed: seed)
        }
        let core: any ChatCore
        switch how {
        case .create(let max):
            options.groupMax = max
            core = ChatSession(mode: .create(expiresIn: 600), options: options, now: now, random: random())
        case .join(let code):
            if code.count > 6 { options.codeSecret = CodeSecret(text: String(code.dropFirst(7))) }
            core = ChatSession(mode: .join(code: String(code.prefix(6))), options: options, now: now, random: random())
        case .rejoin(let entry):
            core = GroupSession(entry: entry, options: GroupSession.Options(chat: options, name: name), now: now, random: random)
        }
        let client = Client(world: self, name: name, core: core, plain: false)
        client.groupOptions = GroupSession.Options(chat: options, name: name)
        client.groupRandom = random
        client.groupFiles = files
        return admit(client)
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
        while step(until: end) {}
        now = max(now, end)
        net.advance(to: now)
    }

    /// Runs until `condition` holds (checked after each step), at most `limit`.
    @discardableResult
    func run(until condition: () -> Bool, limit: Duration = .seconds(300)) -> Bool {
        let end = now + limit
        while !condition() {
            guard step(until: end) else {
                now = max(now, end)
                net.advance(to: now)
                return condition()
            }
        }
        return true
    }

    /// The earliest of: an event, an arrival, a session's deadline, if it is
    /// due by `end`. False when nothing is.
    private func step(until end: Duration) -> Bool {
        var sessionDue: (client: Client, at: Duration)?
        for client in clients where !client.crashed {
            if let at = client.core.pollTimeout(), at < sessionDue?.at ?? .seconds(Int64.max) { sessionDue = (client, at) }
        }
        let eventDue = queue.indices.min { (queue[$0].at, queue[$0].seq) < (queue[$1].at, queue[$1].seq) }
        let arrival = net.nextArrival
        let next = [sessionDue?.at, eventDue.map { queue[$0].at }, arrival].compactMap { $0 }.min()
        guard let next, next <= end else { return false }
        now = max(now, next)
        net.advance(to: now)
        if let index = eventDue, queue[index].at <= next {
            queue.remove(at: index).run()
        } else if let arrival, arrival <= next {
            while let datagram = net.popDue() { arrived(datagram) }
        } else if let (client, _) = sessionDue {
            client.core.handleTimeout(now: now)
            client.process()
        }
        for (token, response) in router.pollCompletedLongPolls() { answerLongPoll(token, response) }
        return true
    }

    // MARK: The server

    func rest(_ request: HTTPRequest, id: Int, from client: Client) {
        toServer(from: client, "http").send { [self] in
            guard serverUp else {
                client.reply(id, .failure(.unreachable(server: "http://chat.test", reason: "connection refused")))
                return
            }
            var request = request
            if !groupRooms, let body = try? JSON.parse(String(decoding: request.body, as: UTF8.self)), case .object(let fields) = body {
                // A server without group rooms (Inviso) ignores fields it does not know.
                request.body = JSON.object(fields.filter { $0.0 != "group" && $0.0 != "max" }).serializedBytes
            }
            switch router.handle(request, clientAddress: "192.0.2.\(clients.firstIndex { $0 === client } ?? 0)", now: unixNow) {
            case .respond(let response):
                fromServer(to: client, "http").send { client.reply(id, .success(response)) }
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
        fromServer(to: client, "http").send { client.reply(id, .success(response)) }
    }

    func connectSignaling(_ client: Client) {
        toServer(from: client, "connect").send { [self] in
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
        toServer(from: client, "ws\(connection)").send { [self] in
            guard client.connection == connection else { return }
            route(hub.receive(connection, text: message.json.serialized, now: unixNow))
        }
    }

    func route(_ outbound: [Outbound]) {
        for out in outbound {
            guard let client = clients.first(where: { $0.connection == out.connection && !$0.crashed }) else { continue }
            fromServer(to: client, "ws\(out.connection)").send { [self] in
                guard client.connection == out.connection else { return }
                switch out.message {
                case .connected(let id): client.signalingEvent(.open(clientID: id))
                case .leftRoom where client.leaving:
                    client.connection = nil
                    route(hub.disconnect(out.connection))
                    client.core.signalingLeft(now: now)
                    client.process()
                default: client.signalingEvent(.message(out.message))
                }
            }
        }
    }

    /// The server goes down (its sockets drop) and comes back after `downFor`
    /// with its rooms (SQLite) but no sockets.
    /// `reconnectAfter`: when each client (by name) tries again, 500 ms unless given.
    func restartServer(downFor: Duration, reconnectAfter: [String: Duration] = [:]) {
        serverUp = false
        let dropped = clients.filter { $0.connection != nil && !$0.crashed }
        for client in dropped {
            client.connection = nil
            let retry = reconnectAfter[client.name] ?? .milliseconds(500)
            client.signalingEvent(.lost(.connectionLost("the server closed the connection"), retryIn: retry))
            at(retry) { self.connectSignaling(client) }
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
        at(handshakeTime) { [self] in
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

    /// ICE's checks, DTLS and SCTP's setup: a few round trips on the peer path.
    var handshakeTime: Duration { peerLink.delay * 4 }

    private func reconnect(_ a: FakePeer, _ b: FakePeer) {
        at(handshakeTime) { [self] in
            for peer in [a, b] where !peer.dead && !peer.closed {
                peer.pathDown = false
                peer.owner(in: self)?.deliver(.reconnected(peer.info), to: peer)
            }
            for (peer, event) in stalled where !peer.dead { transmit(from: peer, event) }
            stalled = []
            for (peer, event, size) in stalledChannels where !peer.dead { transmit(from: peer, channel: event, size: size) }
            stalledChannels = []
        }
    }

    var stalled: [(FakePeer, PeerConnectionEvent)] = []

    /// The ordered, reliable channels, on one `ReliableStream` each way per
    /// connection: the `chat` messages, the `ctl` messages and the close, in
    /// the order sent. (SCTP orders each channel's stream on its own, so
    /// across `chat` and `ctl` this is stricter than a real association; a
    /// graceful SCTP shutdown does deliver everything sent before it.) The
    /// emulator's loss on this path is therefore a retransmission, never a
    /// dropped message, as on the real reliable channel; only a process dying
    /// loses what it had not yet delivered. SCTP's acknowledgements of `chat`
    /// messages are the stream's own acks coming back over the path.
    func transmit(from peer: FakePeer, _ event: PeerConnectionEvent) {
        guard let other = peer.other, !other.dead else { return }
        if peer.pathDown || other.pathDown { stalled.append((peer, event)); return }
        if case .controlMessage = event, peer.owner(in: self)?.plain == true || other.owner(in: self)?.plain == true { return }
        let isChat = if case .message = event { true } else { false }
        channel(from: peer, to: other).send(counted: isChat) { [self] in
            guard !other.closed || event == .closed else { return }
            if event == .closed { other.closed = true; other.isOpen = false }
            other.owner(in: self)?.deliver(event, to: other)
        }
    }

    /// A file channel's event, on the same ordered stream as the chat's
    /// (`size`: a message's bytes, counted in the sender's buffer until delivered).
    func transmit(from peer: FakePeer, channel event: DataChannelEvent, size: Int = 0) {
        guard let other = peer.other, !other.dead else { return }
        if peer.pathDown || other.pathDown { stalledChannels.append((peer, event, size)); return }
        channel(from: peer, to: other).send(counted: false) { [self] in
            peer.bufferedAmount -= size
            guard !other.closed else { return }
            other.arrived(event)
            other.owner(in: self)?.progressed(other)
            peer.owner(in: self)?.progressed(peer)
        }
    }

    var stalledChannels: [(FakePeer, DataChannelEvent, Int)] = []

    // MARK: The network

    /// Puts one stream datagram on the emulated network, now.
    func transmit(_ kind: StreamDatagram, stream: Int, sequence: Int, from source: String, to destination: String) {
        net.advance(to: now)
        net.send(StreamDatagram.encode(kind, stream: stream, sequence: sequence), from: source, to: destination)
    }

    private func arrived(_ datagram: EmulatedDatagram<String>) {
        let (kind, id, sequence) = StreamDatagram.decode(datagram.bytes)
        guard let stream = streams[id] else { return }
        switch kind {
        case .data: stream.dataArrived(sequence)
        case .ack: stream.ackArrived(sequence)
        }
    }

    private func stream(_ name: String, from source: String, to destination: String,
                        setUp: (ReliableStream) -> Void) -> ReliableStream {
        if let id = streamIDs[name], let stream = streams[id] { return stream }
        let stream = ReliableStream(id: streams.count, from: source, to: destination, world: self)
        setUp(stream)
        streams[stream.id] = stream
        streamIDs[name] = stream.id
        return stream
    }

    /// A process's address: its own, even when it presents the certificate
    /// of the process it resumes.
    func host(_ client: Client) -> String { hosts[ObjectIdentifier(client)] ?? client.name }

    private func toServer(from client: Client, _ label: String) -> ReliableStream {
        stream("\(host(client))>server \(label)", from: host(client), to: Self.server) {
            $0.senderAlive = { [unowned client] in !client.crashed }
        }
    }

    private func fromServer(to client: Client, _ label: String) -> ReliableStream {
        stream("server>\(host(client)) \(label)", from: Self.server, to: host(client)) {
            $0.receiverAlive = { [unowned client] in !client.crashed }
        }
    }

    private func channel(from peer: FakePeer, to other: FakePeer) -> ReliableStream {
        stream("\(peer.serial)>\(other.serial)", from: peer.owner + "/\(peer.serial)", to: other.owner + "/\(other.serial)") {
            $0.senderAlive = { [unowned peer] in !peer.dead }
            $0.receiverAlive = { [unowned other] in !other.dead }
            $0.onAcknowledged = { [unowned self, unowned peer] count in
                peer.chatMessagesAcknowledged += count
                peer.owner(in: self)?.progressed(peer)
            }
        }
    }

    private func setServerPaths(_ client: Client) {
        net.paths[.init(host(client), Self.server)] = serverLink
        net.paths[.init(Self.server, host(client))] = serverLink
    }
}

extension FakePeer {
    func owner(in world: World) -> Client? { world.clients.first { $0.peers.contains { $0 === self } && !$0.crashed } }
}

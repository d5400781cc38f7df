import HTTP1
import Runtime
import Signaling
import WebSocket

/// `chatcli serve` on the event loop: REST and the signaling WebSocket on one
/// TCP port (optionally TLS), the STUN responder on two UDP ports, and the
/// timers that sweep expired rooms, time out long polls and drop dead
/// sockets. The protocol decisions live in the sans-IO `RESTRouter` and
/// `SignalingHub`; this class only moves bytes and time.
public final class SignalingService {
    let loop: EventLoop
    let config: ServerConfiguration
    /// The embedded rooms (SQLite); nil on a cluster, whose rooms live in Redis.
    let registry: RoomRegistry?
    let router: any RequestRouting
    let hub: any SignalingRelay
    let cluster: ClusterLink?
    let log: AccessLog
    let tls: TLSContext?
    var listener: TCPListener?
    var stun: STUNService?
    var relay: RelayService?
    var metricsListener: TCPListener?
    var counters = ServiceCounters()
    /// The relay's shared secret: `--turn-secret-file`, else drawn at start
    /// (kept beside the database; on a cluster, replaced by the one in Redis).
    var relaySecret: [UInt8]
    /// A cluster's embedded relays share `relaySecret` through Redis
    /// (`ClusterRelaySecret`); `relaySecretIsShared` once it was read there.
    let sharesRelaySecret: Bool
    var relaySecretIsShared = false
    /// Redis held something that is not a secret (reported once until it changes).
    var relaySecretUnusable = false
    var connections: [ConnectionID: ServerConnection] = [:]
    var longPolls: [LongPollToken: ConnectionID] = [:]
    var nextID: UInt64 = 1
    var limits: ClientLimits
    var housekeeping: Timer?
    var stopping = false

    /// Sockets silent this long get a ping; silent for `deadAfter`, they are closed.
    static let pingAfter = Duration.seconds(30)
    static let deadAfter = Duration.seconds(45)
    /// How soon a seat holder probed on `room_full` must answer: a live
    /// socket answers a ping within one round trip (far less than a second
    /// anywhere on Earth); a member whose network changed is back in its
    /// seat this soon after its new socket asks.
    static let probeTimeout = Duration.seconds(1)
    /// HTTP connections idle (or stuck mid-request) this long are closed.
    static let httpIdle = Duration.seconds(60)

    public init(loop: EventLoop, config: ServerConfiguration) throws(ServerError) {
        self.loop = loop
        self.config = config
        limits = ClientLimits(config.clientLimits)
        log = AccessLog(showAddresses: config.logAddresses, json: config.logJSON)
        log.enabled = !config.embedded
        if let secret = config.turnSecret {
            relaySecret = secret
        } else if config.redis == nil, !config.embedded {
            relaySecret = RelaySecretFile.loadOrCreate(database: config.databasePath, fresh: Self.randomSecret) ?? Self.randomSecret()
        } else {
            relaySecret = Self.randomSecret()
        }
        var iceServers = ICEServerConfiguration(
            stunPort: config.embedded ? 0 : Int(config.publicSTUNPort ?? config.stunPort), turnURLs: config.turnURLs, turnSecret: config.turnSecret,
            membersOnly: config.turnMembersOnly, fallbackHost: config.host)
        let embeddedRelay = config.relay != nil && !config.embedded && config.turnURLs.isEmpty
        sharesRelaySecret = embeddedRelay && config.redis != nil && config.turnSecret == nil
        if embeddedRelay {
            // Shared through Redis: no credentials until the cluster's secret is read.
            iceServers.turnSecret = sharesRelaySecret ? nil : relaySecret
            // A named instance (`--turn-host`) is reached on its own STUN port, not through a UDP balancer's.
            let host = config.relay?.advertisedHost
            let udpPort = host == nil ? config.publicSTUNPort ?? config.stunPort : config.stunPort
            iceServers.embeddedRelay = (Int(udpPort), Int(config.port), config.tlsCertificateFile != nil, host)
        }
        if let redis = config.redis {
            (registry, router, hub, cluster) = try Self.clusterParts(loop: loop, config: config, redis: redis, iceServers: iceServers, log: log)
        } else {
            let registry: RoomRegistry
            do {
                let store: any RoomStore = config.embedded
                    ? InMemoryRoomStore() : try SQLiteRoomStore(path: config.databasePath, autoCheckpoint: false)
                registry = try RoomRegistry(
                    store: store,
                    random: SystemRandomNumberGenerator(),
                    rateLimiter: SlidingWindowLimiter(limit: config.missedAcceptsPerMinute, windowSeconds: 60),
                    maxRooms: config.maxRooms)
            } catch {
                let reason = RoomDatabasePath.problem(with: config.databasePath) ?? error.message
                throw .database(path: config.databasePath, reason: reason)
            }
            if !config.embedded { WALCheckpointer.start(path: config.databasePath) }
            self.registry = registry
            router = RESTRouter(registry: registry, iceServers: iceServers, random: SystemRandomNumberGenerator())
            hub = SignalingHub(
                random: SystemRandomNumberGenerator(), roomIsJoinable: { room, now in registry.isJoinable(room, now: now) },
                roster: { room, now in registry.roster(id: room, now: now) },
                endGroup: { [log] room, now in
                    // A failed delete leaves the room to its expiry: nobody is in it.
                    do { try registry.endGroup(id: room, now: now) } catch { log.write("error", ["what": "end_group", "reason": "\(error)"]) }
                })
            cluster = nil
        }
        if let cert = config.tlsCertificateFile, let key = config.tlsKeyFile {
            do {
                tls = try TLSContext.server(certFile: cert, keyFile: key)
            } catch {
                throw .tlsCertificate(reason: error.reason)
            }
        } else {
            tls = nil
        }
    }

    /// Binds every socket; throws one sentence if any cannot be bound.
    public func start() throws(ServerError) {
        guard let address = SocketAddress(ip: config.host, port: config.port) else {
            throw .notAnAddress(host: config.host)
        }
        do {
            let listener = try TCPListener(loop: loop, address: address)
            listener.onAccept = { [weak self] connection in self?.accept(connection) }
            self.listener = listener
            if !config.embedded, config.turnURLs.isEmpty, let settings = config.relay {
                relay = RelayService(loop: loop, settings: settings, secret: relaySecret,
                                     servicePorts: Set([config.port, listener.localAddress.port, config.stunPort, config.stunPort &+ 1]
                                                       + [config.metricsListen.flatMap { SocketAddress($0)?.port }].compactMap { $0 }), log: log)
            }
            if !config.embedded { stun = try STUNService(loop: loop, host: address, port: config.stunPort, relay: relay) }
            try startMetrics()
        } catch {
            listener?.close()
            stun?.close()
            relay?.close()
            throw .cannotListen(reason: error.description)
        }
        housekeeping = loop.schedule(after: .seconds(5)) { [weak self] in self?.tidy() }
        startCluster()
        let scheme = tls == nil ? "http" : "https"
        let url = "\(scheme)://\(address.family == .ipv6 ? "[\(address.ip)]" : address.ip):\(listener?.localAddress.port ?? config.port)"
        let stunPorts = "udp/\(config.stunPort)+\(config.stunPort + 1)"
        if let cluster {
            log.write("listening", ["url": url, "stun": stunPorts, "redis": cluster.commands.settings.url.redacted, "instance": cluster.instance])
        } else {
            log.write("listening", ["url": url, "stun": stunPorts, "rooms": "\(registry?.roomCount ?? 0)", "db": config.databasePath])
        }
    }

    /// Graceful stop: no new connections, WebSockets closed with 1001, the
    /// loop stops once the last bytes are flushed.
    public func shutdown(_ done: @escaping () -> Void) {
        guard !stopping else { return }
        stopping = true
        log.write("shutdown", ["connections": "\(connections.count)"])
        listener?.close()
        metricsListener?.close()
        stun?.close()
        relay?.close()
        housekeeping?.cancel()
        for connection in connections.values {
            if var ws = connection.socket {
                ws.close(code: .goingAway)
                connection.socket = ws
                connection.flush()
            }
            connection.stream.close()
        }
        loop.schedule(after: .milliseconds(200)) { [weak self] in self?.leaveCluster(done) ?? done() }
    }

    /// The port listened on (the kernel's choice for port 0), once started.
    public var port: UInt16? { listener?.localAddress.port }

    var now: UnixTime { UnixTime(milliseconds: wallClockMilliseconds()) }

    // MARK: Connections

    private static func randomSecret() -> [UInt8] {
        var random = SystemRandomNumberGenerator()
        return (0..<4).flatMap { _ in withUnsafeBytes(of: random.next(), Array.init) }
    }

    private func adoptByRelay(_ connection: ServerConnection, initial: [UInt8]) {
        guard let relay, let tcp = connection.tcp else { return }
        connections[connection.id] = nil
        let key = connection.limitKey
        relay.adopt(connection.stream, remote: tcp.remoteAddress, local: tcp.localAddress, tls: tls != nil, initial: initial) { [weak self] in
            if let key { self?.limits.releaseConnection(key) }
        }
    }

    private func accept(_ tcp: TCPConnection) {
        guard !stopping else { tcp.abort(); return }
        // A trusted proxy carries many clients: each counts at its first request.
        var limitKey: String?
        if !ClientAddress.isTrustedProxy(tcp.remoteAddress, config.trustedProxies) {
            let key = ClientAddress.key(tcp.remoteAddress)
            guard limits.admitConnection(key) else {
                // Closed at once: answering would hold the descriptor it is short of.
                log.write("refused", ["client": log.client(tcp.remoteAddress), "reason": "connection limit"])
                tcp.abort()
                return
            }
            limitKey = key
        }
        // A backstop far above the limit the service keeps itself (one
        // more answer may be written past it), so a bug cannot cost more.
        tcp.outputLimit = config.outputLimitPerConnection * 4
        let stream: any ByteStream
        if let tls {
            do {
                stream = try TLSStream(server: tls, over: tcp)
            } catch {
                tcp.abort()
                return
            }
        } else {
            stream = tcp
        }
        let id = ConnectionID(nextID)
        nextID += 1
        let connection = ServerConnection(id: id, stream: stream, peer: tcp.remoteAddress, client: log.client(tcp.remoteAddress), now: loop.now)
        connection.tcp = tcp
        connection.limitKey = limitKey
        connections[id] = connection
        stream.onData = { [weak self, weak connection] bytes in
            guard let self, let connection else { return }
            connection.lastActivity = self.loop.now
            self.receive(bytes, on: connection)
        }
        stream.onClose = { [weak self, weak connection] error in
            guard let self, let connection else { return }
            self.closed(connection, error: error)
        }
        stream.onDrain = { [weak self, weak connection] in
            guard let self, let connection else { return }
            self.drained(connection)
        }
    }

    private func closed(_ connection: ServerConnection, error: RuntimeError?) {
        connections[connection.id] = nil
        if let key = connection.limitKey { limits.releaseConnection(key) }
        switch connection.mode {
        case .longPoll(let token, let timer, _, _):
            timer.cancel()
            longPolls[token] = nil
            router.cancelLongPoll(token)
        case .webSocket:
            deliver(hub.disconnect(connection.id))
            log.write("ws_close", ["conn": "\(connection.id.rawValue)", "client": connection.client, "reason": error?.reason ?? "closed"])
        default:
            break
        }
    }

    private func receive(_ bytes: [UInt8], on connection: ServerConnection) {
        switch connection.mode {
        case .webSocket: receiveFrames(bytes, on: connection)
        case .draining: break
        case .http where connection.isFresh && bytes.first == 0x00 && relay != nil:
            // A STUN message where HTTP would start: TURN over TCP (or TLS) on this port.
            adoptByRelay(connection, initial: bytes)
        case .http, .longPoll:
            connection.isFresh = false
            connection.parser.feed(bytes)
            if connection.requestStarted == nil { connection.requestStarted = loop.now }
            processRequests(on: connection)
        }
    }

    /// Answers buffered requests in order until one is held (long poll),
    /// the connection upgrades, or more bytes are needed.
    func processRequests(on connection: ServerConnection) {
        while case .http = connection.mode {
            // A client that sends requests without reading the answers
            // (pipelining GETs of the page, say) waits: no more answers are
            // made, nothing more is read, until it has taken what is queued.
            if isBackedUp(connection) {
                pauseReading(connection)
                return
            }
            if connection.parser.takeContinueRequest() {
                connection.stream.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
            }
            let request: HTTPRequest
            do {
                guard let next = try connection.parser.next() else {
                    if connection.parser.isIdle { connection.requestStarted = nil }
                    return
                }
                request = next
            } catch {
                refuse(connection, error)
                return
            }
            let started = connection.requestStarted ?? loop.now
            connection.requestStarted = connection.parser.isIdle ? nil : loop.now
            guard admitProxied(request, on: connection, started: started) else { return }
            if config.embedded, !connection.peer.isLoopback, !EmbeddedEndpoint.answersFromAnotherHost(request) {
                respond(EmbeddedEndpoint.refusal, to: request, on: connection, started: started)
                continue
            }
            if WebSocketHandshake.isUpgradeRequest(request) {
                upgrade(connection, request)
                return
            }
            route(request, on: connection, started: started)
        }
    }
}

import Runtime
import Wire

/// One connection to Redis on the event loop, kept up for as long as it is
/// wanted: connect (TCP, or TLS through ``TLSStream``), `AUTH`, `SELECT`,
/// then pipelined commands whose replies come back in order. When the
/// connection drops, every command without a reply fails with
/// ``RedisError/unavailable(_:)`` (it may or may not have run) and the
/// connection is made again with backoff (0.1 s doubling to 2 s).
///
/// A server that stops answering (stopped process, dead host) is detected by
/// the command deadline: a command unanswered after `commandTimeout` (plus
/// its own allowance, for blocking reads) drops the connection.
public final class RedisConnection {
    public struct Settings: Sendable {
        public var url: RedisURL
        public var password: String?
        public var connectTimeout: Duration = .seconds(2)
        public var commandTimeout: Duration = .seconds(3)
        /// CA file for `rediss://` (nil: the system store).
        public var caFile: String?
        /// Commands run on every new connection before any other, such as
        /// `SCRIPT LOAD` (a restarted Redis has forgotten its scripts).
        public var setup: [[String]] = []

        public init(url: RedisURL, password: String? = nil) {
            self.url = url
            self.password = password ?? url.password
        }
    }

    public typealias Completion = (Result<RESPValue, RedisError>) -> Void

    private struct Pending {
        var deadline: Instant
        var completion: Completion
    }

    public let loop: EventLoop
    public let settings: Settings
    /// Called each time the connection is ready for commands.
    public var onReady: (() -> Void)?
    /// Called each time a ready connection drops, or an attempt fails, with why.
    public var onDown: ((String) -> Void)?
    public private(set) var isReady = false
    /// Why the last attempt or connection failed.
    public private(set) var lastError: String?

    private var stream: ByteStream?
    private var decoder = RESPDecoder()
    /// Commands sent and not yet answered, oldest first (replies come in order).
    private var pending = Deque<Pending>()
    private var backoff = Duration.milliseconds(100)
    private var watchdog: Timer?
    private var retry: Timer?
    private var closed = false
    private var tlsContext: TLSContext?
    private var attempt = 0

    public init(loop: EventLoop, settings: Settings) {
        self.loop = loop
        self.settings = settings
    }

    /// Starts connecting; keeps reconnecting until ``close()``.
    public func start() {
        guard !closed, stream == nil, retry == nil else { return }
        connect()
    }

    /// Stops for good: pending commands fail, no reconnect.
    public func close() {
        closed = true
        retry?.cancel()
        retry = nil
        drop("closed", reconnect: false)
        stream?.close()
        stream = nil
    }

    /// Sends a command. `allowance` extends the reply deadline (for a
    /// blocking command such as `XREAD BLOCK`). Fails at once, on a later
    /// turn, when not connected.
    public func send(_ arguments: [String], allowance: Duration = .zero, _ completion: @escaping Completion) {
        guard isReady, let stream else {
            let reason = lastError ?? "not connected"
            loop.execute { completion(.failure(.unavailable(reason))) }
            return
        }
        pending.append(Pending(deadline: loop.now + settings.commandTimeout + allowance, completion: completion))
        stream.write(RESPEncoder.command(arguments))
    }

    /// Commands sent and not yet answered.
    public var inFlight: Int { pending.count }

    // MARK: - Connecting

    private func connect() {
        attempt += 1
        let url = settings.url
        Resolver.resolve(host: url.host, port: url.port, loop: loop, timeout: settings.connectTimeout) { [weak self] result in
            guard let self, !self.closed else { return }
            switch result {
            case .failure(let error): self.failed(error.description)
            case .success(let addresses):
                guard let address = addresses.first else { self.failed("no address for \(url.host)"); return }
                self.connect(to: address)
            }
        }
    }

    private func connect(to address: SocketAddress) {
        let url = settings.url
        if url.tls {
            do {
                if tlsContext == nil { tlsContext = try TLSContext.client(caFile: settings.caFile) }
            } catch {
                failed(error.description)
                return
            }
            guard let tlsContext else { return }
            TLSStream.connect(loop: loop, to: address, serverName: url.host, context: tlsContext, timeout: settings.connectTimeout) {
                [weak self] result in
                switch result {
                case .success(let stream): self?.connected(stream)
                case .failure(let error): self?.failed(error.description)
                }
            }
        } else {
            TCPConnection.connect(loop: loop, to: address, timeout: settings.connectTimeout) { [weak self] result in
                switch result {
                case .success(let stream): self?.connected(stream)
                case .failure(let error): self?.failed(error.description)
                }
            }
        }
    }

    private func connected(_ stream: ByteStream) {
        guard !closed else { stream.abort(); return }
        self.stream = stream
        decoder = RESPDecoder()
        stream.onData = { [weak self] bytes in self?.receive(bytes) }
        stream.onClose = { [weak self] error in
            guard let self else { return }
            self.stream = nil
            self.drop(error?.description ?? "Redis closed the connection", reconnect: true)
        }
        watchdog = loop.schedule(after: .milliseconds(500)) { [weak self] in self?.checkDeadlines() }
        // The handshake rides the same pipeline; the connection is ready when
        // the last of it answers.
        var handshake: [[String]] = []
        if let password = settings.password {
            handshake.append(settings.url.user.map { ["AUTH", $0, password] } ?? ["AUTH", password])
        }
        if settings.url.database != 0 { handshake.append(["SELECT", String(settings.url.database)]) }
        handshake += settings.setup
        handshake.append(["PING"])
        let last = handshake.count - 1
        for (i, command) in handshake.enumerated() {
            pending.append(Pending(deadline: loop.now + settings.commandTimeout) { [weak self] result in
                guard let self else { return }
                switch result {
                case .failure(let error):
                    self.lastError = Self.handshakeReason(error)
                    self.stream?.abort()
                case .success:
                    if i == last {
                        self.isReady = true
                        self.lastError = nil
                        self.backoff = .milliseconds(100)
                        self.onReady?()
                    }
                }
            })
            stream.write(RESPEncoder.command(command))
        }
    }

    private static func handshakeReason(_ error: RedisError) -> String {
        switch error {
        case .server(let message) where message.hasPrefix("WRONGPASS") || message.hasPrefix("NOAUTH") || message.contains("AUTH"):
            return "authentication failed (\(message))"
        default:
            return error.description
        }
    }

    private func failed(_ reason: String) {
        lastError = reason
        onDown?(reason)
        scheduleRetry()
    }

    private func scheduleRetry() {
        guard !closed, retry == nil else { return }
        let delay = backoff
        backoff = min(backoff * 2, .seconds(2))
        retry = loop.schedule(after: delay) { [weak self] in
            guard let self else { return }
            self.retry = nil
            self.connect()
        }
    }

    // MARK: - Replies

    private func receive(_ bytes: [UInt8]) {
        decoder.feed(bytes)
        while true {
            let value: RESPValue?
            do {
                value = try decoder.next()
            } catch {
                lastError = "Redis sent something that is not RESP (\(error.reason))"
                stream?.abort()
                return
            }
            guard let value else { return }
            guard let entry = pending.popFirst() else {
                lastError = "Redis sent a reply to no command"
                stream?.abort()
                return
            }
            if case .error(let message) = value {
                entry.completion(.failure(.server(message)))
            } else {
                entry.completion(.success(value))
            }
        }
    }

    private func checkDeadlines() {
        watchdog = nil
        guard let stream else { return }
        if let oldest = pending.first, oldest.deadline <= loop.now {
            lastError = "Redis did not answer within \(settings.commandTimeout)"
            stream.abort()
            return
        }
        watchdog = loop.schedule(after: .milliseconds(500)) { [weak self] in self?.checkDeadlines() }
    }

    /// Fails every unanswered command, in order, and reconnects if wanted.
    private func drop(_ reason: String, reconnect: Bool) {
        let wasReady = isReady
        isReady = false
        watchdog?.cancel()
        watchdog = nil
        let failing = pending
        pending = Deque()
        let why = lastError ?? reason
        lastError = why
        for entry in failing { entry.completion(.failure(.unavailable(why))) }
        if wasReady || reconnect { onDown?(why) }
        if reconnect { scheduleRetry() }
    }
}

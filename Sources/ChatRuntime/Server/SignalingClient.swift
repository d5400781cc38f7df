import ChatClient
import HTTP1
import Runtime
import Signaling
import WebSocket
import Wire

/// The signaling WebSocket (WireProtocol §2) as Inviso's SignalingClient runs it:
/// a ping every 25 s with a 10 s pong deadline, reconnects with exponential
/// backoff and full jitter (0.5 s → 30 s), and a user's leave that suppresses
/// the reconnect.
public final class SignalingClient {
    let connector: Connector
    var loop: EventLoop { connector.loop }
    var rng = SystemRandomNumberGenerator()
    var backoff = Backoff()
    public var heartbeatInterval: Duration = .seconds(25)
    public var heartbeatTimeout: Duration = .seconds(10)
    /// How soon a probe after a network change must be answered.
    public var probeTimeout: Duration = .seconds(2)
    public var onEvent: ((SignalingEvent) -> Void)?

    private var stream: (any ByteStream)?
    private var socket: WebSocketConnection?
    private var heartbeat: Heartbeat?
    private var heartbeatTimer: Timer?
    private var reconnectTimer: Timer?
    /// Waiting out a backoff before connecting again.
    private var reconnectPending = false
    private var generation = 0
    private var stopped = false
    private var leaveCompletion: (() -> Void)?

    public init(connector: Connector) { self.connector = connector }

    public func start() {
        stopped = false
        connect()
    }

    /// Sends a message if the socket is up; messages while it is down are
    /// dropped (the chat re-sends what matters, such as `join_room`, on `open`).
    public func send(_ message: ClientMessage) {
        guard var ws = socket, ws.state == .open else { return }
        _ = ws.sendText(message.json.serialized)
        socket = ws
        flush()
    }

    /// The user's leave: `leave_room`, then close without reconnecting.
    /// Completes on `left_room`, or after 2 s if the server stays silent.
    public func leave(_ completion: @escaping () -> Void) {
        guard socket?.state == .open else {
            stop()
            completion()
            return
        }
        leaveCompletion = completion
        send(.leaveRoom)
        loop.schedule(after: .seconds(2)) { [weak self] in self?.finishLeave() }
    }

    public func stop() {
        stopped = true
        reconnectTimer?.cancel()
        teardown(closeCode: .normalClosure)
    }

    private func finishLeave() {
        guard let done = leaveCompletion else { return }
        leaveCompletion = nil
        stop()
        done()
    }

    // MARK: Connection

    private func connect() {
        generation += 1
        let gen = generation
        connector.connect { [weak self] result in
            guard let self, gen == self.generation, !self.stopped else { return }
            switch result {
            case .failure(let error):
                if case .tls = error { self.onEvent?(.failed(error)); return }
                self.scheduleReconnect(after: error)
            case .success(let stream):
                self.upgrade(stream, gen: gen)
            }
        }
    }

    private func upgrade(_ stream: any ByteStream, gen: Int) {
        self.stream = stream
        let handshake = WebSocketClientHandshake(using: &rng)
        var parser = HTTPResponseParser()
        stream.onData = { [weak self] bytes in
            guard let self, gen == self.generation else { return }
            if self.socket != nil {
                self.receive(bytes)
                return
            }
            parser.feed(bytes)
            do {
                guard let response = try parser.next() else { return }
                try handshake.validate(response)
                self.socket = .client(maskKeys: { UInt32.random(in: .min ... .max) })
                self.startHeartbeat()
                let rest = parser.takeRemainingBytes()
                if !rest.isEmpty { self.receive(rest) }
            } catch {
                self.drop(.protocolViolation("the WebSocket upgrade failed (\(error))"))
            }
        }
        stream.onClose = { [weak self] error in
            guard let self, gen == self.generation else { return }
            self.stream = nil
            self.drop(.connectionLost(error?.reason ?? "the server closed the connection"))
        }
        stream.write(handshake.request(target: "/ws", host: connector.server.authority).serialized(host: connector.server.authority))
    }

    private func receive(_ bytes: [UInt8]) {
        guard var ws = socket else { return }
        let events = ws.feed(bytes)
        socket = ws
        flush()
        for event in events {
            heartbeat?.pongReceived()   // any traffic proves the server alive
            switch event {
            case .text(let text):
                guard let json = try? JSON.parse(text), let message = ServerMessage(json: json) else { continue }
                if case .connected(let id) = message {
                    backoff.reset()
                    onEvent?(.open(clientID: id))
                } else if case .leftRoom = message, leaveCompletion != nil {
                    finishLeave()
                    return
                } else {
                    onEvent?(.message(message))
                }
            case .close, .failed:
                drop(.connectionLost("the server closed the WebSocket"))
                return
            default:
                break
            }
        }
    }

    private func flush() {
        guard var ws = socket, let stream else { return }
        while let bytes = ws.pollTransmit() { stream.write(bytes) }
        socket = ws
    }

    // MARK: Heartbeat and reconnect

    private func startHeartbeat() {
        heartbeat = Heartbeat(now: loop.now.duration, interval: heartbeatInterval, timeout: heartbeatTimeout)
        armHeartbeat()
    }

    private func armHeartbeat() {
        guard let hb = heartbeat else { return }
        heartbeatTimer?.cancel()
        heartbeatTimer = loop.schedule(at: Instant(hb.deadline)) { [weak self] in self?.beat() }
    }

    private func beat() {
        guard var hb = heartbeat else { return }
        let action = hb.poll(now: loop.now.duration)
        heartbeat = hb
        switch action {
        case .sendPing:
            if var ws = socket {
                _ = ws.ping()
                socket = ws
                flush()
            }
        case .timedOut:
            drop(.connectionLost("no answer to the heartbeat within \(heartbeatTimeout.milliseconds / 1000) s"))
            return
        case nil:
            break
        }
        armHeartbeat()
    }

    /// The machine's network changed (`addresses`: its usable addresses
    /// now). A socket whose local address is gone is dead without knowing it
    /// (nothing can leave from that address, not even a FIN), so it is
    /// replaced at once; any other must answer a ping within `probeTimeout`,
    /// since its route may have moved.
    public func networkChanged(addresses: Set<SocketAddress>) {
        guard let stream, var hb = heartbeat else {
            // The old network failed every attempt (a link down): try the new one now.
            if reconnectPending, !stopped {
                reconnectTimer?.cancel()
                reconnectPending = false
                connect()
            }
            return
        }
        if let local = Self.localAddress(of: stream), !addresses.contains(local.with(port: 0)) {
            // Not the server failing: no reason to wait before the new socket.
            drop(.connectionLost("the network changed"), retryAfter: .zero)
            return
        }
        hb.probe(now: loop.now.duration, timeout: probeTimeout)
        heartbeat = hb
        armHeartbeat()
    }

    private static func localAddress(of stream: any ByteStream) -> SocketAddress? {
        if let tcp = stream as? TCPConnection { return tcp.localAddress }
        if let tls = stream as? TLSStream { return localAddress(of: tls.transport) }
        return nil
    }

    /// The socket is gone: tear it down and, unless the user left, come back.
    /// `retryAfter`: the delay before reconnecting (else the next backoff).
    private func drop(_ error: ClientError, retryAfter: Duration? = nil) {
        teardown(closeCode: nil)
        if let done = leaveCompletion {
            leaveCompletion = nil
            stopped = true
            done()
            return
        }
        guard !stopped else { return }
        scheduleReconnect(after: error, delay: retryAfter)
    }

    private func scheduleReconnect(after error: ClientError, delay: Duration? = nil) {
        let delay = delay ?? backoff.next(using: &rng)
        onEvent?(.lost(error, retryIn: delay))
        reconnectTimer?.cancel()
        reconnectPending = true
        reconnectTimer = loop.schedule(after: delay) { [weak self] in
            guard let self, !self.stopped else { return }
            self.reconnectPending = false
            self.connect()
        }
    }

    private func teardown(closeCode: WebSocketCloseCode?) {
        generation += 1
        heartbeatTimer?.cancel()
        heartbeat = nil
        if let closeCode, var ws = socket, ws.state == .open {
            ws.close(code: closeCode)
            socket = ws
            flush()
        }
        socket = nil
        stream?.onData = nil
        stream?.onClose = nil
        stream?.close()
        stream = nil
    }
}

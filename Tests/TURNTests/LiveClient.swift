import Runtime
import STUN
import TestSupport
import TURN

extension STUNAddress {
    init?(_ address: SocketAddress) { self.init(ip: address.ipBytes, port: address.port) }
    var socketAddress: SocketAddress? { SocketAddress(ipBytes: ip, port: port) }
}

/// Drives a `TURNClient` on a real event loop over a UDP socket or a TCP
/// connection to the server: the owner's side of the sans-IO contract.
final class LiveClient {
    let loop: EventLoop
    let client: TURNClient
    private let origin: Instant
    /// Added to the real clock, so a test can jump to a refresh deadline
    /// without waiting minutes.
    var warp: Duration = .zero
    private(set) var events: [TURNEvent] = []
    private(set) var channelDataSent = 0
    private var udp: UDPSocket?
    private var tcp: TCPConnection?
    private var timer: Runtime.Timer?
    private var condition: (() -> Bool)?

    var now: Duration { loop.now - origin + warp }

    init(loop: EventLoop, server: SocketAddress, transport: TURNTransport, username: String, password: String) throws {
        self.loop = loop
        origin = loop.now
        guard let serverAddress = STUNAddress(server) else { throw TestSupportError("bad server address") }
        client = TURNClient(server: serverAddress, transport: transport, username: username, password: password, now: .zero)
        switch transport {
        case .udp:
            let socket = try UDPSocket(loop: loop, bind: SocketAddress(ip: "127.0.0.1", port: 0) ?? server)
            socket.onDatagram = { [unowned self] bytes, from in
                guard from == server else { return }
                client.handleInput(bytes, now: now)
                flush()
            }
            udp = socket
            flush()
        case .tcp:
            TCPConnection.connect(loop: loop, to: server, timeout: .seconds(5)) { [unowned self] result in
                guard case .success(let connection) = result else { return }
                connection.onData = { [unowned self] bytes in
                    client.handleInput(bytes, now: now)
                    flush()
                }
                connection.onClose = { [unowned self] _ in
                    client.handleTransportClosed(now: now)
                    flush()
                }
                tcp = connection
                flush()
            }
        }
    }

    /// Sends what the client has queued, collects its events and re-arms
    /// the timer.
    func flush() {
        if udp != nil || tcp != nil {
            while let bytes = client.pollTransmit() {
                if let first = bytes.first, ChannelData.startsChannelData(first) { channelDataSent += 1 }
                if let udp, let destination = client.server.socketAddress { udp.send(bytes, to: destination) }
                tcp?.write(bytes)
            }
        }
        while let event = client.pollEvent() { events.append(event) }
        timer?.cancel()
        timer = nil
        if let deadline = client.pollTimeout() {
            timer = loop.schedule(after: max(.zero, deadline - now)) { [unowned self] in
                client.handleTimeout(now: now)
                flush()
            }
        }
        poke()
    }

    /// Stops the loop once the awaited condition holds.
    func poke() {
        if let condition, condition() { loop.stop() }
    }

    /// Runs the loop until `done` holds, at most `timeout`.
    func run(timeout: Duration = .seconds(10), until done: @escaping () -> Bool) -> Bool {
        if done() { return true }
        condition = done
        defer { condition = nil }
        _ = loop.run(timeout: timeout)
        return done()
    }

    func hasEvent(_ match: (TURNEvent) -> Bool) -> Bool { events.contains(where: match) }

    func close() {
        timer?.cancel()
        udp?.close()
        tcp?.abort()
    }
}

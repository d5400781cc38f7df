import ChatClient
import ICE
import Runtime
import STUN
import TURN

/// Runs one `TURNClient` on the event loop: a UDP socket, or a TCP
/// connection to the server, and the client's timer.
final class TURNRunner {
    let client: TURNClient
    private let loop: EventLoop
    private var socket: UDPSocket?
    private let streams: TURNStreams
    private var timer: Timer?
    var onEvent: ((TURNEvent) -> Void)?

    init(loop: EventLoop, server: ICETURNServer, caFile: String?) throws(RuntimeError) {
        self.loop = loop
        client = TURNClient(server: server.address, transport: server.transport, username: server.username,
                            password: server.password, now: loop.now.duration)
        streams = TURNStreams(loop: loop, servers: [server], caFile: caFile)
        if server.transport == .udp {
            let udp = try UDPSocket(loop: loop, bind: .unspecified(server.address.family == .ipv4 ? .ipv4 : .ipv6, port: 0))
            udp.onDatagram = { [weak self] bytes, source in
                guard let self, STUNAddress(source) == self.client.server else { return }
                self.client.handleInput(bytes, now: self.loop.now.duration)
                self.pump()
            }
            socket = udp
        }
        streams.onData = { [weak self] _, bytes in
            guard let self else { return }
            self.client.handleInput(bytes, now: self.loop.now.duration)
            self.pump()
        }
        streams.onClose = { [weak self] _, reason in
            guard let self else { return }
            self.client.handleTransportClosed(now: self.loop.now.duration, reason: reason)
            self.pump()
        }
    }

    func pump() {
        let now = loop.now.duration
        if let due = client.pollTimeout(), due <= now { client.handleTimeout(now: now) }
        while let bytes = client.pollTransmit() {
            if let socket, let server = SocketAddress(client.server) {
                socket.send(bytes, to: server)
            } else {
                streams.write(bytes, to: client.server)
            }
        }
        while let event = client.pollEvent() { onEvent?(event) }
        timer?.cancel()
        if let due = client.pollTimeout() {
            timer = loop.schedule(at: Instant(max(due, now))) { [weak self] in self?.pump() }
        }
    }

    /// Deletes the allocation, then closes the socket or stream.
    func close() {
        onEvent = nil
        client.deallocate(now: loop.now.duration)
        pump()
        timer?.cancel()
        socket?.close()
        streams.closeAll()
    }
}

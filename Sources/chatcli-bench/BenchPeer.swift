import Glibc
import ICE
import PeerConnection
import Runtime
import STUN

/// One side of a benchmark pair: a `PeerConnection` driven on the event loop
/// through a single UDP socket on 127.0.0.1 (its only host candidate), or,
/// given a TURN server, relay-only through it over UDP from that socket. The
/// benchmark wires two of these together directly, with no signaling server.
final class BenchPeer {
    let pc: PeerConnection
    let loop: EventLoop
    let relay: ICETURNServer?
    private let socket: UDPSocket
    private let base: STUNAddress
    private var timer: Timer?
    private var timerDeadline: Duration?
    private var pumping = false
    private var sentSincePump = false

    var onCandidate: ((String?) -> Void)?
    var onOpen: (() -> Void)?
    var onMessage: ((String) -> Void)?
    /// After every pump: where the sender's flow control looks at `bufferedAmount`.
    var afterPump: (() -> Void)?
    /// Datagrams and bytes handed to the socket (for `--only` diagnostics).
    private(set) var datagramsSent = 0
    private(set) var bytesSent = 0
    private(set) var failure: String?
    private(set) var isOpen = false

    init(loop: EventLoop, isOfferer: Bool, relay: ICETURNServer? = nil) throws {
        self.loop = loop
        self.relay = relay
        guard let any = SocketAddress(ip: "127.0.0.1", port: 0) else { throw BenchError("bad loopback address") }
        socket = try UDPSocket(loop: loop, bind: any)
        guard let base = STUNAddress(ip: socket.localAddress.ipBytes, port: socket.localAddress.port) else {
            socket.close()
            throw BenchError("the socket has no usable address")
        }
        self.base = base
        do {
            var config = PeerConnectionConfig()
            // CHATCLI_MAX_PACKET=1200: every packet at an internet path's size, as for chatcli.
            if let text = getenv("CHATCLI_MAX_PACKET"), let limit = Int(String(cString: text)), limit >= 256 { config.maxPacketSize = limit }
            // CHATCLI_CONGESTION_CONTROL=cubic (or bbr) picks the SCTP sender's congestion control (benchmarks).
            if let text = getenv("CHATCLI_CONGESTION_CONTROL"), let cc = CongestionControlAlgorithm(rawValue: String(cString: text)) { config.congestionControl = cc }
            if let relay {
                config.turnServers = [relay]
                config.ice.relayOnly = true
            }
            pc = try PeerConnection(isOfferer: isOfferer, localAddresses: [base], config: config, now: loop.now.duration)
        } catch {
            socket.close()
            throw error
        }
        socket.onDatagram = { [unowned self] bytes, source in
            guard let from = STUNAddress(ip: source.ipBytes, port: source.port) else { return }
            pc.handleInput(bytes, from: from, to: self.base, now: self.loop.now.duration)
        }
        // One pump for every datagram of a read, as `PeerLink` does.
        socket.onDatagramsRead = { [unowned self] in pump() }
    }

    /// Queues a message; the caller pumps (or is inside a pump, whose loop
    /// sends it).
    func send(_ text: String) {
        do {
            try pc.send(text: text)
        } catch {
            failure = failure ?? error.description
        }
        sentSincePump = true
    }

    /// Sends what the connection queued, reports its events, re-arms its timer.
    func pump() {
        // Callbacks may send (echo, refill), which pumps again: the outer
        // pump's loops pick up whatever that left, so nesting is not needed.
        if pumping { return }
        pumping = true
        defer { pumping = false }
        var progress = true
        while progress {
            progress = false
            sentSincePump = false
            progress = sendTransmits()
            while let event = pc.pollEvent() {
                progress = true
                switch event {
                case .localCandidate(let candidate): onCandidate?(candidate)
                case .endOfCandidates: onCandidate?(nil)
                case .connected:
                    isOpen = true
                    onOpen?()
                case .message(let text): onMessage?(text)
                case .failed(let error): failure = failure ?? error.description
                case .disconnected(let loss): failure = failure ?? loss.description
                case .networkChanged(let change): failure = failure ?? change.description
                case .closed: failure = failure ?? "closed"
                case .iceConnected, .reconnected, .controlOpen, .controlMessage, .messageTooLarge: break
                }
            }
            afterPump?()
            if sentSincePump { progress = true }
        }
        arm()
    }

    /// Hands what the connection queued to the socket; whether there was any.
    /// (TURN over UDP only: nothing here opens a stream to a TURN server.)
    private func sendTransmits() -> Bool {
        var sent = false
        socket.beginBatch()
        while let transmit = pc.pollTransmit() {
            sent = true
            guard transmit.route == .datagram,
                  let destination = SocketAddress(ipBytes: transmit.destination.ip, port: transmit.destination.port) else { continue }
            socket.send(transmit.bytes, to: destination)
            datagramsSent += 1
            bytesSent += transmit.bytes.count
        }
        socket.endBatch()
        return sent
    }

    /// One timer per peer, moved only when the deadline comes earlier: a
    /// timer firing before a deadline that moved later costs one no-op turn,
    /// far less than cancelling and rescheduling on every packet.
    private func arm() {
        guard let due = pc.pollTimeout() else { return }
        if let timerDeadline, timer?.isPending == true, timerDeadline <= due { return }
        timer?.cancel()
        timerDeadline = due
        timer = loop.schedule(at: Instant(due)) { [weak self] in
            guard let self else { return }
            self.timerDeadline = nil
            self.pc.handleTimeout(now: self.loop.now.duration)
            self.pump()
        }
    }

    func close() {
        timer?.cancel()
        timer = nil
        afterPump = nil
        onMessage = nil
        onOpen = nil
        onCandidate = nil
        // Allocations deleted, not left to expire: a run makes dozens, and
        // a relay holds one client address to a quota of them.
        if relay != nil {
            pc.releaseRelays(now: loop.now.duration)
            _ = sendTransmits()
        }
        socket.close()
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

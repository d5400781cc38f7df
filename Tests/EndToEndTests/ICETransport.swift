import ChatRuntime
import ICE
import Runtime
import STUN

/// Test support for the aioice interop test: runs a bare `ICEAgent` (no
/// DTLS, no relays; the product uses `PeerLink`) on the event loop: one UDP socket per local address
/// (each a base for host candidates), STUN and connectivity checks through
/// them, the agent's timer, and the RFC 7983 demultiplexing of what arrives
/// (STUN to the agent, DTLS and the rest to `onPacket`).
final class ICETransport {
    let agent: ICEAgent
    let loop: EventLoop
    private var sockets: [STUNAddress: UDPSocket] = [:]
    private var timer: Timer?
    private var closed = false
    var onEvent: ((ICEEvent) -> Void)?
    /// Non-STUN datagrams (DTLS) and where they came from.
    var onPacket: (([UInt8], STUNAddress) -> Void)?

    init(loop: EventLoop, role: ICERole, credentials: ICECredentials, interfaces: [SocketAddress],
                stunServers: [SocketAddress], config: ICEConfig = ICEConfig()) throws(RuntimeError) {
        self.loop = loop
        var rng = SystemRandomNumberGenerator()
        agent = ICEAgent(role: role, localCredentials: credentials, tieBreaker: rng.next(), config: config, now: loop.now.duration)
        for address in interfaces {
            let socket: UDPSocket
            do {
                socket = try UDPSocket(loop: loop, bind: address.with(port: 0))
            } catch {
                continue   // an address that vanished or cannot be bound is simply not a candidate
            }
            guard let base = STUNAddress(socket.localAddress) else { continue }
            sockets[base] = socket
            socket.onDatagram = { [weak self] bytes, source in self?.receive(bytes, from: source, on: base) }
        }
        guard !sockets.isEmpty else {
            throw RuntimeError(kind: .invalidArgument, reason: "no local address could be bound for UDP")
        }
        for base in sockets.keys.sorted(by: { $0.description < $1.description }) { agent.addLocalInterface(base) }
        for server in stunServers {
            if let address = STUNAddress(server) { agent.addSTUNServer(address) }
        }
    }

    /// Starts gathering and checks (the first timeout sends the STUN requests).
    func start() { pump() }

    func setRemoteCredentials(ufrag: String, pwd: String) {
        agent.setRemoteCredentials(ufrag: ufrag, pwd: pwd)
        pump()
    }

    func addRemoteCandidate(_ candidate: ICECandidate) {
        agent.addRemoteCandidate(candidate)
        pump()
    }

    func remoteEndOfCandidates() {
        agent.remoteEndOfCandidates()
        pump()
    }

    func restart(credentials: ICECredentials) {
        agent.restart(newCredentials: credentials)
        pump()
    }

    /// Sends application bytes (DTLS) on the selected pair; false without one.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        guard agent.send(bytes) else { return false }
        while let transmit = agent.pollTransmit() { transmitNow(transmit) }
        return true
    }

    func close() {
        closed = true
        timer?.cancel()
        for socket in sockets.values { socket.close() }
        sockets = [:]
    }

    private func receive(_ bytes: [UInt8], from source: SocketAddress, on base: STUNAddress) {
        guard !closed, let first = bytes.first, let from = STUNAddress(source) else { return }
        switch Demux.classify(first) {
        case .stun:
            agent.handleInput(bytes, from: from, to: base, now: loop.now.duration)
            pump()
        default:
            onPacket?(bytes, from)
        }
    }

    /// Sends what the agent queued, reports its events, re-arms its timer.
    private func pump() {
        guard !closed else { return }
        let now = loop.now.duration
        var rounds = 0
        while let due = agent.pollTimeout(), due <= now, rounds < 8 {
            agent.handleTimeout(now: now)
            rounds += 1
        }
        while let transmit = agent.pollTransmit() { transmitNow(transmit) }
        while let event = agent.pollEvent() {
            onEvent?(event)
            if closed { return }
        }
        timer?.cancel()
        if let due = agent.pollTimeout() {
            timer = loop.schedule(at: Instant(due)) { [weak self] in self?.pump() }
        }
    }

    private func transmitNow(_ transmit: ICETransmit) {
        guard let socket = sockets[transmit.source], let destination = SocketAddress(transmit.destination) else { return }
        socket.send(transmit.bytes, to: destination)
    }
}

import ChatClient
import Runtime
import STUN

/// Sends STUN Binding requests from one UDP socket, one server at a time,
/// and reports the mapped address each saw (nil when none answered).
final class STUNProbe {
    let loop: EventLoop
    let socket: UDPSocket
    private var client = STUNClient(policy: STUNRetransmissionPolicy(initialRTO: .milliseconds(250), maxTransmissions: 5, lastWaitMultiplier: 4))
    private var rng = SystemRandomNumberGenerator()
    private var waiting: [STUNTransactionID: (STUNMessage?, Duration) -> Void] = [:]
    private var started: [STUNTransactionID: Duration] = [:]
    private var timer: Timer?

    init(loop: EventLoop, family: SocketAddress.Family) throws(RuntimeError) {
        self.loop = loop
        socket = try UDPSocket(loop: loop, bind: .unspecified(family, port: 0))
        socket.onDatagram = { [weak self] bytes, source in
            guard let self, let from = STUNAddress(source) else { return }
            _ = self.client.handleInput(bytes, from: from, now: self.loop.now.duration)
            self.pump()
        }
    }

    /// Queries `server`; `done` gets the response (or nil) and the round trip.
    func query(_ server: STUNAddress, _ done: @escaping (STUNMessage?, Duration) -> Void) {
        let now = loop.now.duration
        let id = client.startBinding(to: server, now: now, using: &rng)
        waiting[id] = done
        started[id] = now
        pump()
    }

    func close() {
        timer?.cancel()
        socket.close()
    }

    private func pump() {
        let now = loop.now.duration
        if let due = client.pollTimeout(), due <= now { client.handleTimeout(now: now) }
        while let transmit = client.pollTransmit() {
            if let destination = SocketAddress(transmit.destination) { socket.send(transmit.bytes, to: destination) }
        }
        while let event = client.pollEvent() {
            switch event {
            case .response(let response):
                let rtt = now - (started.removeValue(forKey: response.transactionID) ?? now)
                waiting.removeValue(forKey: response.transactionID)?(response.message, rtt)
            case .timeout(let id):
                started[id] = nil
                waiting.removeValue(forKey: id)?(nil, .zero)
            }
        }
        timer?.cancel()
        if let due = client.pollTimeout() {
            timer = loop.schedule(at: Instant(due)) { [weak self] in self?.pump() }
        }
    }
}

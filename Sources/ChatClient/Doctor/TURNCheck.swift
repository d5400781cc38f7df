import ICE
import Runtime
import STUN
import TURN
import Wire

/// `chatcli doctor`'s TURN check: two allocations on the same server, each
/// permitting the other's relayed address; a probe goes from A to B's
/// relayed address and B echoes it to A's. That is a true round trip
/// through the relay, which works behind any NAT (both legs leave from here).
final class TURNCheck {
    struct Result: Sendable {
        var url: String
        var relayed: String?
        var rttMilliseconds: Double?
        var error: String?

        var json: JSON {
            .object([
                "url": .string(url), "relayed": relayed.map(JSON.string) ?? .null,
                "rtt_ms": rttMilliseconds.map { .number(Doctor.rounded($0)) } ?? .null,
                "error": error.map(JSON.string) ?? .null,
            ])
        }

        var text: String {
            if let error { return "\(url) FAILED: \(error)" }
            let rtt = rttMilliseconds.map { ", round trip through the relay \(Doctor.rounded($0)) ms" } ?? ""
            return "\(url) relays at \(relayed ?? "?")\(rtt)"
        }
    }

    private let loop: EventLoop
    private var runners: [TURNRunner] = []
    private var relayed: [STUNAddress?] = [nil, nil]
    private var result: Result
    private var done: ((Result) -> Void)?
    private var deadline: Timer?
    private var sentAt: Duration?
    private let probe = Array("chatcli doctor relay probe".utf8)

    init(loop: EventLoop, url: String) {
        self.loop = loop
        result = Result(url: url)
    }

    /// Runs the check; `done` is called once, within `timeout`.
    func run(server: ICETURNServer, timeout: Duration = .seconds(10), _ done: @escaping (Result) -> Void) {
        self.done = done
        do {
            runners = [try TURNRunner(loop: loop, server: server), try TURNRunner(loop: loop, server: server)]
        } catch {
            return finish(error: "cannot open a socket: \(error)")
        }
        for (index, runner) in runners.enumerated() {
            runner.onEvent = { [weak self] event in self?.handle(event, on: index) }
        }
        deadline = loop.schedule(after: timeout) { [weak self] in
            guard let self else { return }
            self.finish(error: self.relayed.contains(nil)
                ? "no allocation within \(timeout.components.seconds) s (is the server reachable on this transport?)"
                : "the probe did not come back through the relay within \(timeout.components.seconds) s")
        }
        for runner in runners { runner.pump() }
    }

    private func handle(_ event: TURNEvent, on index: Int) {
        switch event {
        case .allocated(let address, _, _):
            relayed[index] = address
            if index == 0 { result.relayed = address.description }
            guard let a = relayed[0], let b = relayed[1] else { return }
            runners[0].client.createPermission(for: b)
            runners[1].client.createPermission(for: a)
            sentAt = loop.now.duration
            runners[0].client.send(probe, to: b)
            for runner in runners { runner.pump() }
        case .data(let from, let bytes):
            guard bytes == probe else { return }
            if index == 1 {
                runners[1].client.send(bytes, to: from)   // the echo
                runners[1].pump()
            } else if let sentAt {
                result.rttMilliseconds = Doctor.milliseconds(loop.now.duration - sentAt)
                finish(error: nil)
            }
        case .failed(let reason):
            finish(error: reason)
        case .permissionFailed(_, let reason):
            finish(error: reason)
        case .refreshed, .permissionCreated, .channelBound, .channelBindFailed, .deallocated:
            break
        }
    }

    private func finish(error: String?) {
        guard let done else { return }
        self.done = nil
        result.error = error
        deadline?.cancel()
        for runner in runners { runner.close() }
        let result = result
        loop.execute { done(result) }
    }
}

extension Doctor {
    /// The TURN checks, one server after the other, then `done`.
    func checkTURN(_ servers: ResolvedICEServers, _ report: Report, _ done: @escaping (Report) -> Void) {
        guard let server = servers.turn.first else { return done(report) }
        var rest = servers
        rest.turn.removeFirst()
        let url = rest.turnURLs.removeFirst()
        let check = TURNCheck(loop: loop, url: url)
        check.run(server: server) { [self] result in
            _ = check   // kept alive until it reports
            var report = report
            report.turn.append(result)
            checkTURN(rest, report, done)
        }
    }
}

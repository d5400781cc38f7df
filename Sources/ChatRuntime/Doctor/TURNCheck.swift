import ChatClient
import ICE
import Runtime
import TURN
import Wire

/// `chatcli doctor`'s TURN check: two allocations on the same server, each
/// permitting the other's relayed address; a probe goes from A to B's
/// relayed address and B echoes it to A's (`RelayProbe`). That is a true
/// round trip through the relay, which works behind any NAT (both legs
/// leave from here).
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
    private var probe = RelayProbe()
    private var result: Result
    private var done: ((Result) -> Void)?
    private var deadline: Timer?
    private var resend: Timer?

    init(loop: EventLoop, url: String) {
        self.loop = loop
        result = Result(url: url)
    }

    /// Runs the check; `done` is called once, within `timeout`.
    /// `caFile` is trusted for a `turns:` server.
    func run(server: ICETURNServer, caFile: String?, timeout: Duration = .seconds(10), _ done: @escaping (Result) -> Void) {
        self.done = done
        do {
            runners = [try TURNRunner(loop: loop, server: server, caFile: caFile), try TURNRunner(loop: loop, server: server, caFile: caFile)]
        } catch {
            return finish(error: "cannot open a socket: \(error)")
        }
        for (index, runner) in runners.enumerated() {
            runner.onEvent = { [weak self] event in self?.handle(event, on: index) }
        }
        deadline = loop.schedule(after: timeout) { [weak self] in
            guard let self else { return }
            let seconds = timeout.components.seconds
            if !self.probe.isAllocated {
                self.finish(error: "no allocation within \(seconds) s (is the server reachable on this transport?)")
            } else if self.probe.probesSent == 0 {
                self.finish(error: "the relay did not install the permissions within \(seconds) s")
            } else {
                self.finish(error: "none of \(self.probe.probesSent) probes came back through the relay within \(seconds) s")
            }
        }
        for runner in runners { runner.pump() }
    }

    private func handle(_ event: TURNEvent, on index: Int) {
        let now = loop.now.duration
        switch event {
        case .allocated(let address, _, _):
            if index == 0 { result.relayed = address.description }
            perform(probe.allocated(address, on: index))
        case .permissionCreated:
            perform(probe.permissionCreated(on: index, now: now))
        case .data(let from, let bytes):
            perform(probe.received(bytes, from: from, on: index, now: now))
            if let roundTrip = probe.roundTrip {
                result.rttMilliseconds = Doctor.milliseconds(roundTrip)
                finish(error: nil)
            }
        case .failed(let reason):
            finish(error: reason.description)
        case .permissionFailed(_, let reason):
            finish(error: reason.description)
        case .refreshed, .channelBound, .channelBindFailed, .deallocated:
            break
        }
    }

    /// Hands the probe's actions to the clients and arms its next resend.
    private func perform(_ actions: [RelayProbe.Action]) {
        guard done != nil else { return }
        for action in actions {
            switch action {
            case .createPermission(let index, let peer): runners[index].client.createPermission(for: peer, now: loop.now.duration)
            case .send(let bytes, let index, let peer): runners[index].client.send(bytes, to: peer, now: loop.now.duration)
            }
        }
        resend?.cancel()
        if let due = probe.pollTimeout() {
            resend = loop.schedule(at: Instant(due)) { [weak self] in
                guard let self else { return }
                self.perform(self.probe.handleTimeout(now: self.loop.now.duration))
            }
        }
        if !actions.isEmpty { for runner in runners { runner.pump() } }
    }

    private func finish(error: String?) {
        guard let done else { return }
        self.done = nil
        result.error = error
        deadline?.cancel()
        resend?.cancel()
        for runner in runners { runner.close() }
        let result = result
        loop.execute { done(result) }
    }
}

extension Doctor {
    /// Resolves the TURN servers' names off the loop, then checks them.
    func checkTURN(_ entries: [ICEServerEntry], _ report: Report, _ done: @escaping (Report) -> Void) {
        ResolvedICEServers.resolve(entries, loop: loop) { [self] servers in checkTURN(servers, report, done) }
    }

    /// The TURN checks, one server after the other, then `done`.
    func checkTURN(_ servers: ResolvedICEServers, _ report: Report, _ done: @escaping (Report) -> Void) {
        guard let server = servers.turn.first else { return done(report) }
        var rest = servers
        rest.turn.removeFirst()
        let url = rest.turnURLs.removeFirst()
        let check = TURNCheck(loop: loop, url: url)
        check.run(server: server, caFile: caFile) { [self] result in
            _ = check   // kept alive until it reports
            var report = report
            report.turn.append(result)
            checkTURN(rest, report, done)
        }
    }
}

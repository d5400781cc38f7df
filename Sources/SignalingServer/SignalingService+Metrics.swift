import HTTP1
import Runtime

/// `GET /metrics` on its own listener (`--metrics-listen`), never on the
/// public port: operators scrape it from inside their network.
extension SignalingService {
    func startMetrics() throws(RuntimeError) {
        guard let text = config.metricsListen else { return }
        guard let address = SocketAddress(text) else { throw RuntimeError(kind: .invalidArgument, reason: "not an address: \(text)") }
        let listener = try TCPListener(loop: loop, address: address)
        listener.onAccept = { [weak self] tcp in self?.serveMetrics(on: tcp) }
        metricsListener = listener
    }

    private func serveMetrics(on tcp: TCPConnection) {
        var parser = HTTPRequestParser(maxHeadSize: 8 * 1024, maxBodySize: 0)
        tcp.onData = { [weak self, weak tcp] bytes in
            guard let self, let tcp else { return }
            parser.feed(bytes)
            let response: HTTPResponse
            switch Result(catching: { try parser.next() }) {
            case .success(nil): return
            case .success(let request?) where request.method == "GET" && request.path == "/metrics":
                var ok = HTTPResponse(status: 200, body: Array(MetricsExposition.render(self.metricsSnapshot()).utf8))
                ok.headers.set("Content-Type", MetricsExposition.contentType)
                response = ok
            default:
                response = .json(404, ["error": "not_found"])
            }
            var closing = response
            closing.headers.set("Connection", "close")
            tcp.write(closing.serialized())
            tcp.close()
        }
        loop.schedule(after: Self.httpIdle) { [weak tcp] in tcp?.abort() }
    }

    func metricsSnapshot() -> MetricsSnapshot {
        var snapshot = MetricsSnapshot()
        if let registry {
            snapshot.roomsWaiting = registry.waitingRoomCount
            snapshot.roomsActive = registry.roomCount - registry.waitingRoomCount
        }
        snapshot.webSockets = connections.values.filter { if case .webSocket = $0.mode { true } else { false } }.count
        snapshot.pairings = counters.pairings
        snapshot.rateLimitRefusals = counters.rateLimitRefusals
        snapshot.relay = relay?.core.statistics
        snapshot.redisRoundTrips = cluster?.roundTrips
        return snapshot
    }
}

/// Counters the service keeps for `/metrics`.
struct ServiceCounters {
    var pairings = 0
    var rateLimitRefusals = 0
}

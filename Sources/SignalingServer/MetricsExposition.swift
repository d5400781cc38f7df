import TURNServer

/// What `GET /metrics` reports, gathered at the moment of the request.
struct MetricsSnapshot {
    var roomsWaiting: Int?
    var roomsActive: Int?
    var webSockets = 0
    var pairings = 0
    var rateLimitRefusals = 0
    var relay: TURNServerStatistics?
    /// With `--redis`.
    var redisRoundTrips: RoundTripHistogram?
}

/// The Prometheus text exposition format (version 0.0.4): `# HELP` and
/// `# TYPE` before each family, base units (bytes), `_total` on counters,
/// one `chatcli_` prefix, labels for the same quantity split by kind.
enum MetricsExposition {
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    static func render(_ snapshot: MetricsSnapshot) -> String {
        var out = ""
        func family(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: Int)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for sample in samples { out += "\(name)\(sample.labels) \(sample.value)\n" }
        }
        if let waiting = snapshot.roomsWaiting, let active = snapshot.roomsActive {
            family("chatcli_rooms", "gauge", "Live rooms, waiting for the second member or paired.",
                   [("{state=\"waiting\"}", waiting), ("{state=\"active\"}", active)])
        }
        family("chatcli_websockets", "gauge", "Open signaling WebSockets.", [("", snapshot.webSockets)])
        family("chatcli_pairings_total", "counter", "Rooms accepted (two members paired) since start.", [("", snapshot.pairings)])
        family("chatcli_rate_limit_refusals_total", "counter", "Requests answered 429 (a client over a limit) since start.",
               [("", snapshot.rateLimitRefusals)])
        if let relay = snapshot.relay {
            family("chatcli_turn_allocations", "gauge", "TURN allocations held now.", [("", relay.allocations)])
            family("chatcli_turn_allocations_created_total", "counter", "TURN allocations made since start.", [("", relay.allocationsCreated)])
            family("chatcli_turn_relayed_bytes_total", "counter", "Application bytes relayed, by direction.",
                   [("{direction=\"to_peer\"}", relay.bytesToPeers), ("{direction=\"to_client\"}", relay.bytesToClients)])
            family("chatcli_turn_relayed_packets_total", "counter", "Datagrams relayed, by direction.",
                   [("{direction=\"to_peer\"}", relay.packetsToPeers), ("{direction=\"to_client\"}", relay.packetsToClients)])
            family("chatcli_turn_refused_peers_total", "counter", "Permissions, channels and datagrams refused by the peer policy.",
                   [("", relay.refusedPeers)])
            family("chatcli_turn_dropped_packets_total", "counter", "Datagrams dropped over a bandwidth cap.", [("", relay.droppedOverBandwidth)])
            family("chatcli_turn_errors_total", "counter", "TURN error responses sent, by STUN error code.",
                   relay.errors.keys.sorted().map { ("{code=\"\($0)\"}", relay.errors[$0] ?? 0) })
        }
        if let trips = snapshot.redisRoundTrips {
            let name = "chatcli_redis_round_trip_seconds"
            out += "# HELP \(name) Round trips of the heartbeat command to Redis, from its write to its answer.\n# TYPE \(name) histogram\n"
            for bucket in trips.cumulative { out += "\(name)_bucket{le=\"\(bucket.le)\"} \(bucket.count)\n" }
            out += "\(name)_sum \(trips.sum)\n\(name)_count \(trips.count)\n"
        }
        return out
    }
}

/// Round trips to Redis as a Prometheus histogram
/// (`chatcli_redis_round_trip_seconds`): the heartbeat's script, sent every
/// `ClusterLink.heartbeatInterval` on the command connection, timed from
/// its write to its answer. Counts are per bucket; rendering makes them
/// cumulative, as the format wants.
struct RoundTripHistogram: Sendable {
    /// Upper bounds in seconds: a LAN Redis answers in well under a
    /// millisecond, a loaded or distant one in tens; past 2.5 s commands
    /// are near their timeout.
    static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    private(set) var counts = [Int](repeating: 0, count: bounds.count + 1)
    private(set) var count = 0
    private(set) var sum: Double = 0

    mutating func record(_ duration: Duration) {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        let bucket = Self.bounds.firstIndex { seconds <= $0 } ?? Self.bounds.count
        counts[bucket] += 1
        count += 1
        sum += seconds
    }

    /// `(le, cumulative count)` for every bucket, `+Inf` last.
    var cumulative: [(le: String, count: Int)] {
        var running = 0
        return counts.enumerated().map { index, n in
            running += n
            return (index < Self.bounds.count ? "\(Self.bounds[index])" : "+Inf", running)
        }
    }
}

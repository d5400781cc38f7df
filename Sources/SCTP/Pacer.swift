/// Spreads a congestion window over the round trip: bursts of at most
/// `burstPackets` datagrams, one burst per `burstPackets × MTU / rate`.
/// A burst is what the runtime hands the kernel in one `sendmmsg`, which
/// `UDP_SEGMENT` turns into one GSO buffer, so pacing costs one timer and
/// one system call per burst rather than per datagram.
struct Pacer {
    /// When the next burst may start.
    private(set) var nextBurstAt: Duration = .zero
    /// Datagrams left in the current burst.
    private var budget = 0

    /// Whether one more datagram may leave at `now` at `rate` bytes per
    /// second (0: unpaced); takes it from the burst when it may.
    mutating func take(now: Duration, rate: Double, burstPackets: Int, mtu: Int) -> Bool {
        guard rate > 0 else { return true }
        if now >= nextBurstAt {
            // A new burst: whatever the last one left unsent is forgotten, so
            // no instant ever sees more than one burst.
            budget = burstPackets
            let interval = Duration(seconds: Double(burstPackets * mtu) / rate)
            // A late timer may catch up by half a burst, no more.
            nextBurstAt = max(nextBurstAt + interval, now + interval / 2)
        }
        guard budget > 0 else { return false }
        budget -= 1
        return true
    }

    /// Whether a datagram could leave at `now` without waiting.
    func isReady(now: Duration) -> Bool { budget > 0 || now >= nextBurstAt }
}

/// A byte-rate limit (the classic token bucket): `rate` bytes a second on
/// average, bursts up to one second's worth. Relayed datagrams over the
/// limit are dropped, as a congested link would, so senders' congestion
/// control backs off.
struct TokenBucket {
    let rate: Int
    private var tokens: Int
    private var last: Duration

    init(rate: Int, now: Duration) {
        self.rate = max(1, rate)
        tokens = self.rate
        last = now
    }

    /// Takes `bytes` if the bucket holds them; false means drop.
    mutating func take(_ bytes: Int, now: Duration) -> Bool {
        if now > last {
            let elapsed = now - last
            let (seconds, attoseconds) = elapsed.components
            let refill = Int(clamping: seconds) &* rate &+ Int(Double(attoseconds) / 1e18 * Double(rate))
            tokens = refill >= rate || tokens >= rate - refill ? rate : tokens + refill
            last = now
        }
        guard tokens >= bytes else { return false }
        tokens -= bytes
        return true
    }
}

/// Retransmission timeout from RTT samples (RFC 9260 §6.3.1, RFC 6298).
/// Callers follow Karn's algorithm: only chunks sent once give samples.
struct RTOEstimator {
    let minimum: Duration
    let maximum: Duration
    private(set) var srtt: Duration?
    private(set) var rttvar: Duration = .zero
    private(set) var rto: Duration

    init(initial: Duration, minimum: Duration, maximum: Duration) {
        self.minimum = minimum
        self.maximum = maximum
        self.rto = initial
    }

    mutating func measure(_ r: Duration) {
        if let s = srtt {
            // RTO.Alpha = 1/8, RTO.Beta = 1/4.
            let delta = s > r ? s - r : r - s
            rttvar = rttvar * 3 / 4 + delta / 4
            srtt = s * 7 / 8 + r / 8
        } else {
            srtt = r
            rttvar = r / 2
        }
        rto = clamp((srtt ?? r) + max(rttvar * 4, .milliseconds(1)))
    }

    /// Exponential back-off after a timer expiry (RFC 9260 §6.3.3 E2).
    mutating func backOff() { rto = clamp(rto * 2) }

    /// Forgets the back-off: the RTO from the last estimate, or `initial`
    /// before any sample.
    mutating func resetBackOff(initial: Duration) {
        guard let srtt else {
            rto = clamp(initial)
            return
        }
        rto = clamp(srtt + max(rttvar * 4, .milliseconds(1)))
    }

    private func clamp(_ d: Duration) -> Duration { min(maximum, max(minimum, d)) }
}

/// The window functions of CUBIC (RFC 9438 §4), in bytes and seconds.
struct Cubic {
    static let c = 0.4
    static let beta = 0.7
    /// RFC 9438 §4.3: the AIMD increase that matches Reno's average window.
    static let alphaReno = 3 * (1 - beta) / (1 + beta)

    /// Window before the last reduction (after fast convergence).
    private(set) var wMax = 0.0
    /// cwnd before the last reduction (for the Reno-friendly alpha).
    private(set) var cwndPrior = 0.0
    /// Start of the current congestion-avoidance stage; nil until it starts.
    private(set) var epochStart: Duration?
    /// Time from epochStart at which W_cubic reaches W_max again.
    private(set) var k = 0.0
    /// Reno-friendly estimate W_est.
    private(set) var wEst = 0.0

    /// W_cubic(t) = C*(t-K)^3 + W_max, C in MTUs per second cubed.
    func wCubic(_ t: Double, mtu: Double) -> Double { Self.c * mtu * (t - k) * (t - k) * (t - k) + wMax }

    mutating func congestionEvent(cwnd: Double) {
        // Fast convergence: a flow whose window keeps shrinking releases
        // bandwidth to newcomers.
        wMax = cwnd < wMax ? cwnd * (1 + Self.beta) / 2 : cwnd
        cwndPrior = cwnd
        epochStart = nil
    }

    mutating func restartEpoch() { epochStart = nil }

    /// The window after `acked` bytes were acknowledged in congestion avoidance.
    mutating func increase(cwnd: Double, acked: Double, mtu: Double, now: Duration, rtt: Duration) -> Double {
        if epochStart == nil {
            epochStart = now
            if wMax <= cwnd {
                k = 0
                wMax = cwnd
            } else {
                k = Self.cubeRoot((wMax - cwnd) / (Self.c * mtu))
            }
            wEst = cwnd
        }
        let t = seconds(now - (epochStart ?? now))
        let alpha = wEst >= cwndPrior ? 1 : Self.alphaReno
        wEst += alpha * mtu * acked / cwnd
        if wCubic(t, mtu: mtu) < wEst { return wEst }
        let target = min(max(wCubic(t + seconds(rtt), mtu: mtu), cwnd), 1.5 * cwnd)
        return cwnd + (target - cwnd) / cwnd * acked
    }

    /// Newton's method (no libm here); called once per epoch.
    static func cubeRoot(_ x: Double) -> Double {
        guard x > 0 else { return 0 }
        var y = max(1, x)
        for _ in 0..<200 {
            let next = (2 * y + x / (y * y)) / 3
            if next >= y { return y }
            y = next
        }
        return y
    }

    private func seconds(_ d: Duration) -> Double {
        let c = d.components
        return Double(c.seconds) + Double(c.attoseconds) / 1e18
    }
}

/// Congestion control of one path: RFC 9260 §7.2 (slow start, fast
/// recovery with one window reduction per episode, T3 collapse to one MTU)
/// with CUBIC (RFC 9438) for congestion avoidance and the multiplicative
/// decrease. Windows count bytes; CUBIC's constant C is per MTU, taken
/// at each step, so a path MTU raised by PLPMTUD keeps the state valid.
struct CongestionControl {
    /// The path MTU in use; raised by Path MTU Discovery.
    var mtu: Int
    private(set) var cwnd: Int
    private(set) var ssthresh: Int
    /// Highest outstanding TSN when fast recovery began (RFC 9260 §7.2.4).
    private(set) var fastRecoveryExitPoint: UInt32?
    private(set) var cubic = Cubic()
    /// Fractions of a byte of growth not yet added to cwnd.
    private var carry = 0.0
    private(set) var hyStart = HyStart()
    /// Bytes of retransmission that may go out during fast recovery even
    /// with flight size at or above cwnd: beta times what SACKs newly
    /// acknowledged since recovery began (PRR's proportional part, RFC 6937
    /// §3). Flight size overstates what is in the network when the peer
    /// holds more than its SACK could list; delivery does not.
    private(set) var recoveryCredit = 0

    init(mtu: Int, peerReceiverWindow: Int) {
        self.mtu = mtu
        // RFC 9260 §7.2.1: min(4*MTU, max(2*MTU, 4380 bytes)).
        cwnd = min(4 * mtu, max(2 * mtu, 4380))
        ssthresh = max(peerReceiverWindow, 4 * mtu)
    }

    var inFastRecovery: Bool { fastRecoveryExitPoint != nil }

    /// A SACK newly acknowledged `bytesAcked` at `now`; `cumulativeAdvanced`
    /// says the cumulative ack point moved; `fullyUtilized` says flight size
    /// was at least cwnd before the SACK; `rtt` is the smoothed round trip.
    mutating func onAcknowledged(bytesAcked: Int, cumulativeAdvanced: Bool, fullyUtilized: Bool, cumulativeTSN: UInt32,
                                 now: Duration, rtt: Duration?) {
        if let exit = fastRecoveryExitPoint, tsnLessOrEqual(exit, cumulativeTSN) {
            fastRecoveryExitPoint = nil
            recoveryCredit = 0
        }
        if inFastRecovery { recoveryCredit += Int(Double(bytesAcked) * Cubic.beta) }
        guard bytesAcked > 0, !inFastRecovery, fullyUtilized else { return }
        if cwnd <= ssthresh {
            if cumulativeAdvanced { cwnd += min(bytesAcked, mtu) }
        } else {
            let next = cubic.increase(cwnd: Double(cwnd), acked: Double(bytesAcked), mtu: Double(mtu), now: now, rtt: rtt ?? .zero)
            carry += max(0, next - Double(cwnd))
            let whole = Int(carry)
            cwnd += whole
            carry -= Double(whole)
        }
    }

    /// An RTT sample from a SACK whose cumulative ack is `cumulativeTSN`,
    /// `highestSent` being the last TSN sent. Ends slow start once the
    /// round trip grows: a queue is building, the path is full (HyStart).
    /// Returns true when slow start ended here.
    mutating func onRTTSample(_ rtt: Duration, cumulativeTSN: UInt32, highestSent: UInt32) -> Bool {
        guard cwnd <= ssthresh, !inFastRecovery else { return false }
        guard hyStart.delayIncreased(rtt, cumulativeTSN: cumulativeTSN, highestSent: highestSent),
              cwnd >= HyStart.lowWindow * mtu else { return false }
        ssthresh = cwnd
        return true
    }

    /// Whether a retransmission may be sent with `flightSize` outstanding.
    func mayRetransmit(flightSize: Int) -> Bool { flightSize < cwnd || recoveryCredit > 0 }

    /// A retransmission of `bytes` went out with flight size at or above cwnd.
    mutating func spendRecoveryCredit(_ bytes: Int) { recoveryCredit = max(0, recoveryCredit - bytes) }

    /// All outstanding data was acknowledged: the sender may have been
    /// application-limited, so CUBIC's clock starts again (RFC 9438 §5.8).
    mutating func onAllAcknowledged() { cubic.restartEpoch() }

    /// Loss detected by miss indications: reduce once per recovery episode.
    /// Returns true when a new fast recovery started.
    mutating func onFastRetransmit(highestOutstanding: UInt32) -> Bool {
        guard !inFastRecovery else { return false }
        reduce()
        cwnd = ssthresh
        carry = 0
        recoveryCredit = 0
        fastRecoveryExitPoint = highestOutstanding
        return true
    }

    /// T3-rtx expiry (RFC 9260 §7.2.3; RFC 9438 §4.8).
    mutating func onRetransmissionTimeout() {
        reduce()
        cwnd = mtu
        fastRecoveryExitPoint = nil
        recoveryCredit = 0
    }

    /// RFC 9438 §4.6: ssthresh = beta_cubic * cwnd (at least 4 MTUs, as
    /// RFC 9260 has it), W_max remembered with fast convergence (§4.7).
    private mutating func reduce() {
        cubic.congestionEvent(cwnd: Double(cwnd))
        ssthresh = max(Int(Double(cwnd) * Cubic.beta), 4 * mtu)
    }
}

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

/// The delay-increase detection of HyStart (RFC 9406 §4.2), leaving slow
/// start at once as Linux's CUBIC does (no conservative slow start). A round
/// is a window of TSNs; the minimum RTT of its first samples is compared
/// with the previous round's.
struct HyStart {
    /// Samples per round before deciding (N_RTT_SAMPLE).
    static let samples = 8
    /// Below this many MTUs slow start always continues (Linux's
    /// hystart_low_window): delayed SACKs make few-packet rounds noisy.
    static let lowWindow = 16
    private var roundEnd: UInt32?
    private var lastRoundMinRTT: Duration?
    private var currentRoundMinRTT: Duration?
    private var count = 0

    mutating func delayIncreased(_ rtt: Duration, cumulativeTSN: UInt32, highestSent: UInt32) -> Bool {
        if roundEnd.map({ tsnLessOrEqual($0, cumulativeTSN) }) ?? true {
            roundEnd = highestSent
            if let c = currentRoundMinRTT { lastRoundMinRTT = c }
            currentRoundMinRTT = nil
            count = 0
        }
        currentRoundMinRTT = min(currentRoundMinRTT ?? rtt, rtt)
        count += 1
        guard count == Self.samples, let last = lastRoundMinRTT, let current = currentRoundMinRTT else { return false }
        // eta = clamp(lastRoundMinRTT / 8, 4 ms, 16 ms).
        let eta = min(max(last / 8, .milliseconds(4)), .milliseconds(16))
        return current >= last + eta
    }
}

/// Congestion control of one path, by `SCTPCongestionControl`: BBR (a
/// model of the path, `BBR`) or RFC 9260 §7.2 (slow start, fast recovery
/// with one window reduction per episode, T3 collapse to one MTU) with
/// CUBIC (RFC 9438) for congestion avoidance and the multiplicative
/// decrease. Windows count bytes; CUBIC's constant C is per MTU, taken
/// at each step, so a path MTU raised by PLPMTUD keeps the state valid.
struct CongestionControl {
    /// The path MTU in use; raised by Path MTU Discovery.
    var mtu: Int {
        didSet { bbr?.mtu = mtu }
    }
    /// The model-based controller; nil when CUBIC runs.
    private(set) var bbr: BBR?
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

    init(mtu: Int, peerReceiverWindow: Int, algorithm: SCTPCongestionControl = .cubic, seed: UInt64 = 0) {
        self.mtu = mtu
        // RFC 9260 §7.2.1: min(4*MTU, max(2*MTU, 4380 bytes)).
        cwnd = min(4 * mtu, max(2 * mtu, 4380))
        ssthresh = max(peerReceiverWindow, 4 * mtu)
        // BBR starts from Linux's initial window of ten packets (RFC 6928):
        // pacing, not the window, spreads the first round.
        if algorithm == .bbr { bbr = BBR(mtu: mtu, initialCwnd: 10 * mtu, seed: seed) }
    }

    /// The congestion window in force, in bytes.
    var window: Int { bbr?.cwnd ?? cwnd }
    /// Bytes per second to pace at; nil when sending is ack-clocked only.
    var pacingRate: Double? { bbr?.pacingRate }
    /// Datagrams the pacer may send at one instant.
    var burstPackets: Int { bbr?.burstPackets ?? Int.max }

    /// BBR's per-SACK update; CUBIC ignores it.
    mutating func onDeliveryRateSample(_ sample: RateSample?, bytesAcked: Int, totalDelivered: Int, rtt: Duration?,
                                       flightSize: Int, cumulativeTSN: UInt32, now: Duration) {
        guard bbr != nil else { return }
        if let exit = fastRecoveryExitPoint, tsnLessOrEqual(exit, cumulativeTSN) { fastRecoveryExitPoint = nil }
        bbr?.onAcknowledged(sample: sample, bytesAcked: bytesAcked, totalDelivered: totalDelivered, rtt: rtt,
                            flightSize: flightSize, now: now)
    }

    /// A new path: BBR's model of the old one means nothing there.
    mutating func restartModel() {
        guard let old = bbr else { return }
        bbr = BBR(mtu: mtu, initialCwnd: 10 * mtu, seed: old.seed)
    }

    /// Bytes found lost by a SACK (before `onDeliveryRateSample`).
    mutating func onLoss(bytes: Int) { bbr?.onLoss(bytes: bytes) }

    var inFastRecovery: Bool { fastRecoveryExitPoint != nil }

    /// A SACK newly acknowledged `bytesAcked` at `now`; `cumulativeAdvanced`
    /// says the cumulative ack point moved; `fullyUtilized` says flight size
    /// was at least cwnd before the SACK; `rtt` is the smoothed round trip.
    mutating func onAcknowledged(bytesAcked: Int, cumulativeAdvanced: Bool, fullyUtilized: Bool, cumulativeTSN: UInt32,
                                 now: Duration, rtt: Duration?) {
        guard bbr == nil else { return }
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
        guard bbr == nil, cwnd <= ssthresh, !inFastRecovery else { return false }
        guard hyStart.delayIncreased(rtt, cumulativeTSN: cumulativeTSN, highestSent: highestSent),
              cwnd >= HyStart.lowWindow * mtu else { return false }
        ssthresh = cwnd
        return true
    }

    /// Whether a retransmission may be sent with `flightSize` outstanding.
    func mayRetransmit(flightSize: Int) -> Bool { flightSize < window || (bbr == nil && recoveryCredit > 0) }

    /// A retransmission of `bytes` went out with flight size at or above cwnd.
    mutating func spendRecoveryCredit(_ bytes: Int) { recoveryCredit = max(0, recoveryCredit - bytes) }

    /// All outstanding data was acknowledged: the sender may have been
    /// application-limited, so CUBIC's clock starts again (RFC 9438 §5.8).
    mutating func onAllAcknowledged() { cubic.restartEpoch() }

    /// Loss detected by miss indications: reduce once per recovery episode.
    /// Returns true when a new fast recovery started.
    mutating func onFastRetransmit(highestOutstanding: UInt32) -> Bool {
        guard !inFastRecovery else { return false }
        if bbr != nil {
            // BBR keeps its model: the loss is counted (`onLoss`), not halved for.
            fastRecoveryExitPoint = highestOutstanding
            return true
        }
        reduce()
        cwnd = ssthresh
        carry = 0
        recoveryCredit = 0
        fastRecoveryExitPoint = highestOutstanding
        return true
    }

    /// T3-rtx expiry (RFC 9260 §7.2.3; RFC 9438 §4.8).
    mutating func onRetransmissionTimeout() {
        if bbr != nil {
            bbr?.onRetransmissionTimeout()
            fastRecoveryExitPoint = nil
            return
        }
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

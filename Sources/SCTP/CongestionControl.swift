/// Congestion control of one path (RFC 9260 §7.2): slow start, congestion
/// avoidance with partial_bytes_acked, fast recovery and T3 collapse.
struct CongestionControl {
    /// The path MTU in use; raised by Path MTU Discovery.
    var mtu: Int
    private(set) var cwnd: Int
    private(set) var ssthresh: Int
    private(set) var partialBytesAcked = 0
    /// Highest outstanding TSN when fast recovery began (RFC 9260 §7.2.4).
    private(set) var fastRecoveryExitPoint: UInt32?

    init(mtu: Int, peerReceiverWindow: Int) {
        self.mtu = mtu
        // RFC 9260 §7.2.1: min(4*MTU, max(2*MTU, 4380 bytes)).
        cwnd = min(4 * mtu, max(2 * mtu, 4380))
        ssthresh = max(peerReceiverWindow, 4 * mtu)
    }

    var inFastRecovery: Bool { fastRecoveryExitPoint != nil }

    /// A SACK newly acknowledged `bytesAcked`; `cumulativeAdvanced` says the
    /// cumulative ack point moved; `fullyUtilized` says flight size was at
    /// least cwnd before the SACK.
    mutating func onAcknowledged(bytesAcked: Int, cumulativeAdvanced: Bool, fullyUtilized: Bool, cumulativeTSN: UInt32) {
        if let exit = fastRecoveryExitPoint, tsnLessOrEqual(exit, cumulativeTSN) { fastRecoveryExitPoint = nil }
        guard bytesAcked > 0, !inFastRecovery else { return }
        if cwnd <= ssthresh {
            if cumulativeAdvanced && fullyUtilized { cwnd += min(bytesAcked, mtu) }
        } else {
            partialBytesAcked += bytesAcked
            if partialBytesAcked >= cwnd && fullyUtilized {
                partialBytesAcked -= cwnd
                cwnd += mtu
            }
        }
    }

    /// All outstanding data was acknowledged.
    mutating func onAllAcknowledged() { partialBytesAcked = 0 }

    /// Loss detected by miss indications: halve once per recovery episode.
    /// Returns true when a new fast recovery started.
    mutating func onFastRetransmit(highestOutstanding: UInt32) -> Bool {
        guard !inFastRecovery else { return false }
        ssthresh = max(cwnd / 2, 4 * mtu)
        cwnd = ssthresh
        partialBytesAcked = 0
        fastRecoveryExitPoint = highestOutstanding
        return true
    }

    /// T3-rtx expiry (RFC 9260 §7.2.3).
    mutating func onRetransmissionTimeout() {
        ssthresh = max(cwnd / 2, 4 * mtu)
        cwnd = mtu
        partialBytesAcked = 0
        fastRecoveryExitPoint = nil
    }
}

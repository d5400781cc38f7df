import Testing
@testable import SCTP

@Suite struct CongestionControlTests {
    /// Acknowledges a full window in 1000-byte steps spread over one round
    /// trip of 100 ms; returns the new time.
    static func roundTrip(_ cc: inout CongestionControl, tsn: inout UInt32, now: Duration) -> Duration {
        let steps = max(1, cc.cwnd / 1000)
        var t = now
        for _ in 0..<steps {
            tsn &+= 1
            t += .milliseconds(100) / steps
            cc.onAcknowledged(bytesAcked: 1000, cumulativeAdvanced: true, fullyUtilized: true, cumulativeTSN: tsn,
                              now: t, rtt: .milliseconds(100))
        }
        return t
    }

    @Test func cubicRegainsTheWindowBeforeTheLossAfterK() {
        var cc = CongestionControl(mtu: 1000, peerReceiverWindow: 1 << 30)
        var tsn: UInt32 = 0
        var now: Duration = .seconds(10)
        while cc.cwnd < 100_000 { now = Self.roundTrip(&cc, tsn: &tsn, now: now) }
        let before = cc.cwnd
        let started = cc.onFastRetransmit(highestOutstanding: tsn &+ 10)
        let again = cc.onFastRetransmit(highestOutstanding: tsn &+ 20)   // one reduction per episode
        #expect(started && !again)
        #expect(cc.cwnd == before * 7 / 10 && cc.ssthresh == cc.cwnd)
        // Nothing grows until the cumulative ack passes the exit point.
        cc.onAcknowledged(bytesAcked: 1000, cumulativeAdvanced: true, fullyUtilized: true, cumulativeTSN: tsn &+ 5,
                          now: now, rtt: .milliseconds(100))
        #expect(cc.cwnd == before * 7 / 10 && cc.inFastRecovery)
        tsn &+= 10
        // K = cbrt(W_max * (1 - beta) / C) in MTUs: 4.2 s for 100 MTUs.
        #expect(abs(Cubic.cubeRoot(75) - 4.2172) < 0.001)
        let k = Cubic.cubeRoot(Double(before) / 1000 * 0.3 / 0.4)
        let start = now
        var atHalfK = 0
        while now - start < .seconds(k) {
            now = Self.roundTrip(&cc, tsn: &tsn, now: now)
            if atHalfK == 0, now - start >= .seconds(k / 2) { atHalfK = cc.cwnd }
        }
        // Concave: most of the way back by K/2, at W_max by K.
        #expect(atHalfK > before * 85 / 100)
        #expect(cc.cwnd >= before * 97 / 100 && cc.cwnd <= before * 105 / 100)
        // Convex beyond: probing for more.
        let plateau = cc.cwnd
        while now - start < .seconds(k + 3) { now = Self.roundTrip(&cc, tsn: &tsn, now: now) }
        #expect(cc.cwnd > plateau + 8_000)
    }

    @Test func fastConvergenceAndTimeout() {
        var cc = CongestionControl(mtu: 1000, peerReceiverWindow: 1 << 30)
        var tsn: UInt32 = 0
        var now: Duration = .seconds(10)
        while cc.cwnd < 100_000 { now = Self.roundTrip(&cc, tsn: &tsn, now: now) }
        let first = cc.cwnd
        _ = cc.onFastRetransmit(highestOutstanding: tsn)
        #expect(cc.cubic.wMax == Double(first))
        // A second loss below W_max: W_max = cwnd * (1 + beta) / 2.
        let second = cc.cwnd
        _ = cc.onFastRetransmit(highestOutstanding: tsn)   // still the same episode
        tsn &+= 1
        cc.onAcknowledged(bytesAcked: 1000, cumulativeAdvanced: true, fullyUtilized: true, cumulativeTSN: tsn,
                          now: now, rtt: .milliseconds(100))
        #expect(!cc.inFastRecovery)
        let reduced = cc.cwnd
        _ = cc.onFastRetransmit(highestOutstanding: tsn &+ 1)
        #expect(reduced < first && abs(cc.cubic.wMax - Double(reduced) * 0.85) < 1)
        #expect(second == first * 7 / 10)
        // T3: one MTU, ssthresh from beta.
        let w = cc.cwnd
        cc.onRetransmissionTimeout()
        #expect(cc.cwnd == 1000 && cc.ssthresh == max(w * 7 / 10, 4000) && !cc.inFastRecovery)
    }
}

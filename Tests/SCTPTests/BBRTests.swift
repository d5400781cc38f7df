import TestSupport
import Testing
@testable import SCTP

/// Issue 28's path: a 100 Mbit/s bottleneck (12.5 MB/s) each way, 50 ms
/// each way (100 ms round trip), a queue of `queue` bandwidth-delay
/// products (1 BDP = 1.25 MB) and `loss` random loss each way.
func hundredMegabitPath(loss: Double, queue: Double = 1, delay: Duration = .milliseconds(50),
                        bandwidth: Int = 12_500_000) -> LinkProfile {
    LinkProfile(loss: loss, delay: delay, bandwidth: bandwidth, queueLimit: Int(Double(bandwidth) * 0.1 * queue))
}

@Suite(.computeThread) struct BBRTests {
    /// Goodput floors in MB/s of virtual time (the link carries 12.5 MB/s
    /// of packets, about 12.2 MB/s of user data at 1200 bytes). CUBIC on
    /// the same path (`LongFatPathTests`) is held near the Mathis bound
    /// at 1 % loss; BBR ignores random loss while no queue stands.
    @Test(arguments: [
        // (loss, queue in BDPs, bytes, floor)
        (0.0, 1.0, 32 << 20, 9.0),
        (0.0, 0.25, 32 << 20, 9.0),
        (0.01, 1.0, 16 << 20, 7.5),
        (0.01, 0.25, 16 << 20, 6.0),
        (0.03, 1.0, 16 << 20, 5.5),
        (0.03, 0.25, 16 << 20, 3.6),
    ])
    func bbrKeepsAHundredMegabitPathFullThroughRandomLoss(loss: Double, queue: Double, total: Int, floor: Double) {
        let r = bulkTransfer(total: total, profile: hundredMegabitPath(loss: loss, queue: queue), packetSize: 1200, seed: 28,
                             limit: .seconds(60), algorithm: .bbr)
        let s = r.sender
        print("BBR, loss \(loss), queue \(queue) BDP: \(r.bytes) B in \(r.elapsed) = \(r.goodput) MB/s;",
              "fast rtx \(s.fastRetransmissions), rtx chunks \(s.retransmittedChunks), T3 \(s.t3Expirations), dropped \(r.dropped)")
        #expect(r.bytes == total)
        #expect(r.goodput >= floor)
    }

    /// The bottleneck drops to a fifth for 4 s and comes back: BBR follows
    /// it down (the max filter forgets the old rate within two probe
    /// cycles, loss bounds it before) and finds the old rate again by
    /// probing.
    @Test func bbrFollowsABandwidthStepDownAndUp() {
        var marks: [(Duration, Int)] = []
        let steps: [Duration] = [.seconds(5), .seconds(9), .seconds(13)]
        let r = bulkTransfer(total: 128 << 20, profile: hundredMegabitPath(loss: 0), packetSize: 1200, seed: 28,
                             limit: .seconds(14), algorithm: .bbr) { pair, bytes in
            if marks.isEmpty { marks.append((pair.now, bytes)) }
            let phase = marks.count - 1
            guard phase < steps.count, pair.now - marks[0].0 >= steps[phase] else { return }
            marks.append((pair.now, bytes))
            var p = pair.profile
            p.bandwidth = phase == 0 ? 2_500_000 : 12_500_000
            p.queueLimit = p.bandwidth / 10
            pair.profile = p
        }
        let rates = zip(marks, marks.dropFirst()).map { a, b in Double(b.1 - a.1) / (b.0 - a.0).seconds / 1e6 }
        print("bandwidth step 12.5 → 2.5 → 12.5 MB/s: \(rates) MB/s; T3 \(r.sender.t3Expirations), dropped \(r.dropped)")
        #expect(rates.count == 3)
        guard rates.count == 3 else { return }
        #expect(rates[0] >= 8.0)
        #expect(rates[1] >= 2.0)
        #expect(rates[2] >= 9.0)
    }

    /// The round trip triples (50 → 150 ms) in the middle of a transfer:
    /// the old min-RTT underestimates the BDP until it expires (10 s, as
    /// the draft has it), the window is two thirds of the new BDP
    /// meanwhile, and the rate must not collapse (6.1 MB/s over the 12 s
    /// after the step).
    @Test func bbrKeepsGoingThroughAnRTTStep() {
        var stepped: (Duration, Int)?
        var start: Duration?
        let r = bulkTransfer(total: 128 << 20, profile: hundredMegabitPath(loss: 0, delay: .milliseconds(25)), packetSize: 1200,
                             seed: 28, limit: .seconds(16), algorithm: .bbr) { pair, bytes in
            let t0 = start ?? pair.now
            start = t0
            guard stepped == nil, pair.now - t0 >= .seconds(4) else { return }
            stepped = (pair.now, bytes)
            var p = pair.profile
            p.delay = .milliseconds(75)
            pair.profile = p
        }
        guard let (at, bytes) = stepped else {
            Issue.record("the transfer ended before the step")
            return
        }
        let after = Double(r.bytes - bytes) / (r.elapsed - (at - (start ?? at))).seconds / 1e6
        print("RTT step 50 → 150 ms: \(after) MB/s after the step; T3 \(r.sender.t3Expirations), dropped \(r.dropped)")
        #expect(after >= 5.5)
    }
}

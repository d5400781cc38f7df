import TestSupport
import Testing
@testable import SCTP

@Suite(.computeThread) struct PacingTests {
    /// After an idle second with a window of about two BDPs open, 4 MiB
    /// written at once must not leave as one burst: at no instant more
    /// DATA packets than the stated burst (1 ms at the pacing rate, at most
    /// 64), and the whole lot no faster than about the pacing rate.
    @Test func bbrPacesBurstsOfTheStatedSize() {
        var config = SCTPConfig()
        config.congestionControl = .bbr
        let pair = connectedPair(profile: hundredMegabitPath(loss: 0), seed: 28, configA: config, configB: config)
        let a = pair.a, b = pair.b
        var perInstant: [Duration: Int] = [:]
        var largest = 0, limit = 0, counting = false
        pair.filter = { toB, bytes in
            guard toB, counting, let packet = SCTPPacket.decode(bytes),
                  packet.chunks.contains(where: { if case .data = $0 { return true } else { return false } }) else { return bytes }
            perInstant[pair.now, default: 0] += 1
            largest = max(largest, perInstant[pair.now] ?? 0)
            limit = max(limit, a.congestion.burstPackets)
            return bytes
        }
        // Warm up: 8 MiB, so the model knows the path.
        let message = [UInt8](repeating: 1, count: 16 * 1024)
        var sent = 0
        _ = pair.run(for: .seconds(30)) {
            while b.pollEvent() != nil {}
            while sent < 512, a.bufferedAmount < 1 << 20, (try? a.send(stream: 0, ppid: 53, bytes: message)) != nil { sent += 1 }
            return sent == 512 && a.isFullyAcknowledged
        }
        #expect(a.isFullyAcknowledged)
        _ = pair.run(for: .seconds(1)) { false }

        #expect(a.congestionWindow > 2_000_000)
        let rate = a.pacingRate ?? 0
        counting = true
        let start = pair.now
        for _ in 0..<256 { try? a.send(stream: 0, ppid: 53, bytes: message) }
        _ = pair.run(for: .seconds(30)) {
            while b.pollEvent() != nil {}
            return a.bufferedAmount == 0
        }
        let elapsed = (pair.now - start).seconds
        print("pacing: largest burst \(largest) packets (limit \(limit)), 4 MiB sent in \(elapsed) s at \(rate) B/s")
        #expect(largest <= limit && limit <= BBR.maxBurstPackets)
        #expect(largest >= 2)
        #expect(rate > 0 && elapsed >= Double(4 << 20) / (rate * 2))
    }
}

import TestSupport
import Testing
@testable import SCTP

/// Payload whose content identifies its message, so corruption or mix-ups show.
func payload(index: Int, size: Int) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: size)
    var x = UInt32(truncatingIfNeeded: index &* 2_654_435_761)
    for i in 0..<size {
        x = x &* 1_103_515_245 &+ 12345
        out[i] = UInt8(truncatingIfNeeded: x >> 16)
    }
    return out
}

func connectedPair(profile: LinkProfile, seed: UInt64, configA: SCTPConfig = SCTPConfig(), configB: SCTPConfig = SCTPConfig())
    -> SimulatedPair<SCTPAssociation>
{
    let a = makeAssociation(seed: seed &* 7 &+ 1, config: configA), b = makeAssociation(seed: seed &* 7 &+ 2, config: configB)
    let pair = SimulatedPair(a, b, profile: profile, seed: seed)
    a.connect(now: pair.now)
    b.connect(now: pair.now)
    _ = pair.run(for: .seconds(60)) { a.isEstablished && b.isEstablished }
    _ = a.pollEvent()
    _ = b.pollEvent()
    return pair
}

@Suite struct DataTransferTests {
    /// 10,000 messages over 10 % loss, 5 % duplication, 50 ms delay with
    /// 20 ms jitter (reordering). Sizes: 99 % log-uniform in 1 B…4 KiB, 1 %
    /// uniform up to 256 KiB with the first and last exactly 256 KiB, so the
    /// full size range is covered while the debug-build test stays fast.
    @Test func tenThousandMessagesDeliveredExactlyOnceInOrderOverHostileLink() throws {
        let pair = connectedPair(profile: .hostile, seed: 42)
        let a = pair.a, b = pair.b
        #expect(a.isEstablished && b.isEstablished)
        var rng = SeededRandom(seed: 7)
        var sizes: [Int] = []
        for i in 0..<10_000 {
            if i == 5000 || i == 9999 {
                sizes.append(262_144)
            } else if rng.next() % 100 == 0 {
                sizes.append(Int(rng.next() % 262_144) + 1)
            } else {
                let bits = Int(rng.next() % 12)
                sizes.append(Int(rng.next() % UInt64(1 << bits)) + 1)
            }
        }
        let streams: [UInt16] = [0, 1, 2, 3]
        var nextToSend = 0
        var received: [UInt16: [Int]] = [:]
        var receivedCount = 0
        var expectedByStream: [UInt16: [Int]] = [:]
        for i in 0..<sizes.count { expectedByStream[streams[i % 4], default: []].append(i) }
        var cursor: [UInt16: Int] = [:]
        var corrupt = 0
        let done = pair.run(for: .seconds(3600)) {
            // Keep about 2 MiB queued so the sender is never starved.
            while nextToSend < sizes.count && a.unacknowledgedBytes < 2_000_000 {
                let s = streams[nextToSend % 4]
                try? a.send(stream: s, ppid: 53, bytes: payload(index: nextToSend, size: sizes[nextToSend]))
                nextToSend += 1
            }
            while let e = b.pollEvent() {
                guard case .message(let stream, _, let bytes) = e else { continue }
                let c = cursor[stream, default: 0]
                let list = expectedByStream[stream] ?? []
                guard c < list.count else { corrupt += 1; continue }
                let index = list[c]
                if bytes != payload(index: index, size: sizes[index]) { corrupt += 1 }
                received[stream, default: []].append(index)
                cursor[stream] = c + 1
                receivedCount += 1
            }
            return receivedCount == sizes.count && a.isFullyAcknowledged
        }
        #expect(done)
        #expect(corrupt == 0)
        #expect(receivedCount == sizes.count)
        for s in streams { #expect(received[s] == expectedByStream[s]) }
        #expect(b.pollEvent() == nil)
    }

    @Test func unorderedMessagesAllArriveExactlyOnce() {
        let pair = connectedPair(profile: .hostile, seed: 5)
        let a = pair.a, b = pair.b
        let count = 500
        for i in 0..<count { try? a.send(stream: 1, ppid: 53, bytes: payload(index: i, size: 1 + (i * 37) % 5000), ordered: false) }
        var seen: [Int: Int] = [:]
        var bad = 0
        _ = pair.run(for: .seconds(600)) {
            while let e = b.pollEvent() {
                guard case .message(_, _, let bytes) = e else { continue }
                let size = bytes.count
                // Identify by size and content.
                let candidates = (0..<count).filter { 1 + ($0 * 37) % 5000 == size && payload(index: $0, size: size) == bytes }
                if let i = candidates.first(where: { seen[$0] == nil }) ?? candidates.first { seen[i, default: 0] += 1 } else { bad += 1 }
            }
            return seen.count == count
        }
        #expect(bad == 0)
        #expect(seen.count == count)
        #expect(seen.values.allSatisfy { $0 == 1 })
    }

    @Test func unorderedSingleChunkMessagesOvertakeAGap() {
        let pair = connectedPair(profile: .clean, seed: 6)
        let a = pair.a, b = pair.b
        var dropped = false
        pair.filter = { toB, bytes in
            guard toB, !dropped, let p = SCTPPacket.decode(bytes), p.chunks.contains(where: { if case .data = $0 { true } else { false } }) else { return bytes }
            dropped = true
            return nil
        }
        for i in 0..<5 { try? a.send(stream: 0, ppid: 53, bytes: [UInt8(i)], ordered: false) }
        // One per packet: send them spaced so each gets its own packet.
        var got: [UInt8] = []
        _ = pair.run(for: .seconds(10)) {
            while let e = b.pollEvent() { if case .message(_, _, let bytes) = e { got.append(contentsOf: bytes) } }
            return got.count == 5
        }
        #expect(Set(got) == Set([0, 1, 2, 3, 4]))
    }
}

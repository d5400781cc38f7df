import Testing
import TestSupport
@testable import SCTP

/// `ReceiveTracker` keeps its gap blocks as sorted runs; a plain set of
/// TSNs, sorted for every SACK (what it replaced), is the reference model.
@Suite struct ReceiveTrackerTests {
    struct Model {
        var cumulative: UInt32
        var above: Set<UInt32> = []

        mutating func receive(_ tsn: UInt32) {
            if tsn == cumulative &+ 1 {
                cumulative = tsn
                while above.remove(cumulative &+ 1) != nil { cumulative &+= 1 }
            } else {
                above.insert(tsn)
            }
        }

        mutating func forward(to tsn: UInt32) {
            guard tsnLess(cumulative, tsn) else { return }
            cumulative = tsn
            above = above.filter { tsnLess(tsn, $0) }
            while above.remove(cumulative &+ 1) != nil { cumulative &+= 1 }
        }

        func blocks() -> [GapAckBlock] {
            var blocks: [GapAckBlock] = []
            for o in above.map({ $0 &- cumulative }).sorted() {
                if let last = blocks.last, UInt32(last.end) + 1 == o {
                    blocks[blocks.count - 1] = GapAckBlock(start: last.start, end: UInt16(o))
                } else {
                    blocks.append(GapAckBlock(start: UInt16(o), end: UInt16(o)))
                }
            }
            return blocks
        }
    }

    /// Random arrivals (reordered, duplicated, lost and late), an occasional
    /// FORWARD TSN, across the 32-bit wrap: the same cumulative TSN, gap
    /// blocks and answers to `isNew` as the model after every step.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func agreesWithASortedSetOfTSNs(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        let initial = UInt32.max - 3000
        var tracker = ReceiveTracker(peerInitialTSN: initial)
        var model = Model(cumulative: initial &- 1)
        var next = initial
        for step in 0..<4_000 {
            let tsn: UInt32
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: tsn = model.cumulative &+ UInt32.random(in: 1...40, using: &rng)   // a hole filled
            case 1: tsn = next &- UInt32.random(in: 0...60, using: &rng)                // late or duplicate
            case 2:
                next &+= UInt32.random(in: 1...5, using: &rng)                          // loss
                tsn = next
            default:
                tsn = next
                next &+= 1
            }
            if step % 331 == 0 {
                let to = model.cumulative &+ UInt32.random(in: 0...80, using: &rng)
                tracker.forward(to: to)
                model.forward(to: to)
            } else if tracker.isNew(tsn) {
                #expect(!model.above.contains(tsn) && tsnLess(model.cumulative, tsn))
                tracker.receive(tsn)
                model.receive(tsn)
            } else {
                #expect(model.above.contains(tsn) || !tsnLess(model.cumulative, tsn))
            }
            #expect(tracker.cumulativeTSN == model.cumulative)
            if step % 20 == 0 {
                #expect(tracker.gapBlocks(limit: 10_000) == model.blocks())
                #expect(tracker.gapBlocks(limit: 3) == Array(model.blocks().prefix(3)))
                #expect(tracker.hasGaps == !model.above.isEmpty)
            }
        }
    }
}

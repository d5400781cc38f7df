@testable import ChatClient
import Testing
import TestSupport

/// The sender's half of delivery, alone. The outbox keeps its live entries
/// as a moving prefix of one array (acknowledgements remove the oldest), so
/// these runs check it against the plain definition — every entry with its
/// connection and position, filtered on each ack — across compactions
/// (thousands of entries, as a script piping into a chat holds) and
/// reconnects.
@Suite(.computeThread) struct OutboxTests {
    /// The definition: what is in the outbox, and what goes out next.
    struct Model {
        var entries: [(seq: Int, text: String, connection: Int?, position: Int)] = []
        var nextSeq = 1, connection = 0, sentOnConnection = 0, open = false

        mutating func append(_ text: String) { entries.append((nextSeq, text, nil, 0)); nextSeq += 1 }
        mutating func opened() -> Int {
            connection += 1
            sentOnConnection = 0
            open = true
            for i in entries.indices { entries[i].connection = nil }
            return entries.first?.seq ?? nextSeq
        }
        var nextUnsent: String? { open ? entries.first { $0.connection == nil }?.text : nil }
        mutating func sent() {
            guard open, let i = entries.firstIndex(where: { $0.connection == nil }) else { return }
            entries[i].connection = connection
            entries[i].position = sentOnConnection
            sentOnConnection += 1
        }
        mutating func acknowledge(seq: Int) -> Int {
            let before = entries.count
            entries.removeAll { $0.seq <= seq }
            return before - entries.count
        }
        mutating func acknowledgeTransport(count: Int) -> Int {
            let before = entries.count
            entries.removeAll { $0.connection == connection && $0.position < count }
            return before - entries.count
        }
    }

    @Test(arguments: [1, 2] as [UInt64])
    func acknowledgementsAndReconnectsLeaveWhatTheDefinitionLeaves(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        var outbox = Outbox(epoch: "e")
        var model = Model()
        var typed = 0, largest = 0
        for step in 0..<24_000 {
            // Phases of 6,000 steps: acks that fall behind (thousands wait,
            // the array is compacted while they are acknowledged), then
            // acks that catch up.
            let reach = (step / 6_000) % 2 == 0 ? 0 : 40
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<40:
                typed += 1
                outbox.append("line \(typed)")
                model.append("line \(typed)")
            case 40..<70:
                for _ in 0..<Int.random(in: 1...8, using: &rng) {
                    #expect(outbox.nextUnsent == model.nextUnsent, "step \(step)")
                    outbox.sent()
                    model.sent()
                }
            case 70..<85:
                // An ack up to something sent, sometimes stale or ahead of what was sent (or absurd).
                let seq = step % 500 == 0 ? Int.min : (model.entries.first?.seq ?? model.nextSeq) + Int.random(in: -3...reach, using: &rng)
                #expect(outbox.acknowledge(epoch: "e", seq: seq) == model.acknowledge(seq: seq), "step \(step)")
            case 85..<95:
                let oldest = model.entries.first { $0.connection == model.connection }?.position ?? model.sentOnConnection
                let count = oldest + Int.random(in: -3...reach, using: &rng)
                #expect(outbox.acknowledgeTransport(count: count) == model.acknowledgeTransport(count: count), "step \(step)")
            case 95..<97:
                outbox.connectionClosed()
                model.open = false
            default:
                #expect(outbox.connectionOpened() == .hello(epoch: "e", next: model.opened()), "step \(step)")
            }
            #expect(outbox.undelivered == model.entries.count, "step \(step)")
            largest = max(largest, model.entries.count)
        }
        #expect(largest > 1_500, "the run held enough entries to compact")
        #expect(outbox.acknowledge(epoch: "other", seq: .max) == 0, "another process's ack")
        #expect(outbox.bytes == model.entries.reduce(0) { $0 + $1.text.utf8.count + Outbox.entryOverhead })
        #expect(outbox.acknowledge(epoch: "e", seq: .max) == model.entries.count)
        #expect(outbox.isEmpty && outbox.bytes == 0)
    }

    /// With a limit (a group's pair), the outbox never holds the input:
    /// past the limit the peer is behind and lines are only counted, until
    /// acknowledgements bring it under half; then the run becomes one gap,
    /// numbered before the next line, sent on every connection until an ack
    /// passes it.
    @Test func pastItsLimitAPeerIsBehindUntilHalfIsAcknowledgedAndTheRunBecomesAGap() {
        var outbox = Outbox(epoch: "e", limit: 10 * (Outbox.entryOverhead + 1))
        let kept = (0..<10).map { outbox.append("\($0)") }
        #expect(kept.allSatisfy { $0 })
        #expect(!outbox.takes("x"))
        let skipped = [outbox.append("skipped 1"), outbox.append("skipped 2")]
        #expect(skipped == [false, false])
        #expect(outbox.isBehind && outbox.missedSinceBehind == 2 && outbox.undelivered == 10)
        outbox.acknowledge(epoch: "e", seq: 2)
        let early = outbox.catchUpIfRoom()
        #expect(early == nil, "8 of 10 still wait: more than half")
        let third = outbox.append("skipped 3")
        #expect(!third, "still behind: no flapping at the limit")
        outbox.acknowledge(epoch: "e", seq: 5)
        let caughtUp = [outbox.catchUpIfRoom(), outbox.catchUpIfRoom()]
        #expect(caughtUp == [3, nil], "said once")
        let after = outbox.append("after")
        #expect(after)
        #expect(outbox.missedSinceBehind == 0)

        _ = outbox.connectionOpened()
        #expect(outbox.nextUnsentGap == .gap(epoch: "e", before: 11, lines: 3))
        outbox.gapSent()
        #expect(outbox.nextUnsentGap == nil)
        _ = outbox.connectionOpened()
        #expect(outbox.nextUnsentGap == .gap(epoch: "e", before: 11, lines: 3), "sent again on a new connection")
        outbox.acknowledge(epoch: "e", seq: 11)
        _ = outbox.connectionOpened()
        #expect(outbox.nextUnsentGap == nil, "an ack past it: the peer has it")
    }

    /// Without a limit (the two-person chat) nothing is ever skipped.
    @Test func withoutALimitEveryLineIsKept() {
        var outbox = Outbox(epoch: "e")
        for i in 0..<10_000 { outbox.append(String(repeating: "x", count: 1_000) + "\(i)") }
        #expect(outbox.undelivered == 10_000 && !outbox.isBehind && outbox.missedSinceBehind == 0)
    }
}

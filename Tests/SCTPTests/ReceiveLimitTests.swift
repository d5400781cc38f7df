import TestSupport
import Testing
@testable import SCTP

/// The receiver's limits hold without wedging: what goes past one is
/// refused (and the peer told), and everything after it still arrives.
@Suite struct ReceiveLimitTests {
    /// A sender that ignores our `a=max-message-size`, as a hostile peer would.
    static var bigSender: SCTPConfig {
        var c = SCTPConfig()
        c.maxMessageSize = 16 << 20
        return c
    }

    /// Protocol Violation causes (13) in ERROR chunks B sent to A, as text.
    static func violationsReported(_ pair: SimulatedPair<SCTPAssociation>) -> () -> [String] {
        var reports: [String] = []
        pair.filter = { toB, bytes in
            guard !toB, let packet = SCTPPacket.decode(bytes) else { return bytes }
            for case .error(let causes) in packet.chunks {
                let c = Array(causes)
                guard c.count >= 4, c[0] == 0, c[1] == 13 else { continue }
                let length = Int(c[2]) << 8 | Int(c[3])
                reports.append(String(decoding: c[4..<min(length, c.count)], as: UTF8.self))
            }
            return bytes
        }
        return { reports }
    }

    @Test(arguments: [true, false])
    func oversizedMessageIsDiscardedThePeerToldAndTheStreamGoesOn(ordered: Bool) throws {
        let pair = connectedPair(profile: .hostile, seed: ordered ? 61 : 62, configA: Self.bigSender)
        let a = pair.a, b = pair.b
        let reports = Self.violationsReported(pair)
        try a.send(stream: 0, ppid: 51, bytes: Array("before".utf8), ordered: ordered)
        try a.send(stream: 0, ppid: 51, bytes: payload(index: 1, size: 1 << 20), ordered: ordered)
        try a.send(stream: 0, ppid: 51, bytes: Array("after".utf8), ordered: ordered)
        var events: [SCTPEvent] = []
        let done = pair.run(for: .seconds(600)) {
            drainEvents(b, into: &events)
            return events.contains(.message(stream: 0, ppid: 51, bytes: Array("after".utf8))) && a.isFullyAcknowledged
        }
        #expect(done)
        let messages = events.compactMap { e -> [UInt8]? in
            if case .message(_, _, let bytes) = e { return bytes } else { return nil }
        }
        #expect(Set(messages) == [Array("before".utf8), Array("after".utf8)], "\(events.map(Self.summary))")
        #expect(events.filter { $0 == .messageTooLarge(stream: 0) }.count == 1)
        #expect(b.statistics.messagesDiscarded == 1)
        // Nothing of it stays held: the whole window is open again.
        #expect(b.reassembly.bufferedBytes == 0)
        #expect(b.receiverWindow == b.config.receiveBufferSize)
        _ = pair.run(for: .seconds(5)) { !reports().isEmpty }
        #expect(reports().first?.contains("larger than the a=max-message-size of 262144 bytes") == true)
        // And the stream carries on with further messages.
        for i in 0..<20 { try a.send(stream: 0, ppid: 51, bytes: payload(index: i, size: 3000), ordered: ordered) }
        var later: [SCTPEvent] = []
        #expect(pair.run(for: .seconds(600)) {
            drainEvents(b, into: &later)
            return later.count >= 20
        })
        let sent = (0..<20).map { SCTPEvent.message(stream: 0, ppid: 51, bytes: payload(index: $0, size: 3000)) }
        #expect(ordered ? later == sent : Set(later.map(Self.summary)) == ["message 0: 3000 bytes"] && later.count == 20)
        #expect(b.reassembly.bufferedBytes == 0)
    }

    /// Events without their bytes, so a failure prints something readable.
    static func summary(_ e: SCTPEvent) -> String {
        switch e {
        case .message(let s, _, let bytes): "message \(s): \(bytes.count) bytes"
        case .messageTooLarge(let s): "too large on \(s)"
        default: "\(e)"
        }
    }

    /// A message exactly at the limit still arrives whole, and the refusal
    /// of the next one is reported in its place in the stream.
    @Test func messageOfExactlyTheLimitIsDelivered() throws {
        let pair = connectedPair(profile: .hostile, seed: 63, configA: Self.bigSender)
        let a = pair.a, b = pair.b
        try a.send(stream: 2, ppid: 53, bytes: payload(index: 9, size: 262_144))
        try a.send(stream: 2, ppid: 53, bytes: payload(index: 10, size: 262_145))
        try a.send(stream: 2, ppid: 53, bytes: [1])
        var events: [SCTPEvent] = []
        #expect(pair.run(for: .seconds(600)) {
            drainEvents(b, into: &events)
            return events.count >= 3
        })
        #expect(events.map(Self.summary) == ["message 2: 262144 bytes", "too large on 2", "message 2: 1 bytes"])
        #expect(events.first == .message(stream: 2, ppid: 53, bytes: payload(index: 9, size: 262_144)))
    }

    /// Several oversized messages on several streams, interleaved with
    /// normal ones, over a lossy link: each stream goes on, in order.
    @Test func oversizedMessagesOnSeveralStreamsLeaveEveryStreamInOrder() throws {
        let pair = connectedPair(profile: .hostile, seed: 64, configA: Self.bigSender)
        let a = pair.a, b = pair.b
        var expected: [UInt16: [[UInt8]]] = [:]
        for round in 0..<3 {
            for stream: UInt16 in [0, 1, 2] {
                let small = payload(index: round * 10 + Int(stream), size: 2000)
                try a.send(stream: stream, ppid: 53, bytes: small)
                expected[stream, default: []].append(small)
                try a.send(stream: stream, ppid: 53, bytes: payload(index: 99, size: 300_000 + round))
            }
        }
        var got: [UInt16: [[UInt8]]] = [:]
        var discarded = 0
        #expect(pair.run(for: .seconds(900)) {
            while let e = b.pollEvent() {
                if case .message(let s, _, let bytes) = e { got[s, default: []].append(bytes) }
                if case .messageTooLarge = e { discarded += 1 }
            }
            return discarded == 9 && got.values.map(\.count).reduce(0, +) == 9
        })
        #expect(got == expected)
        #expect(b.reassembly.bufferedBytes == 0)
    }

    /// Through data channels: the chat channel reports the refused message
    /// and carries on; the channel stays open.
    @Test func dataChannelReportsTheRefusedMessageAndStaysOpen() throws {
        var r1 = SeededRandom(seed: 71), r2 = SeededRandom(seed: 72)
        let client = DataChannelEndpoint(role: .client, config: Self.bigSender, using: &r1)
        let server = DataChannelEndpoint(role: .server, using: &r2)
        let pair = SimulatedPair(client, server, profile: .clean, seed: 73)
        client.connect(now: pair.now)
        server.connect(now: pair.now)
        let id = try client.openChannel(label: "chat")
        try client.send(text: "before", on: id)
        try client.send(text: String(repeating: "x", count: 10_000_000), on: id)
        try client.send(text: "after", on: id)
        var events: [DataChannelEvent] = []
        #expect(pair.run(for: .seconds(1200)) {
            drain(server, into: &events)
            return events.contains(.message(channelID: id, .text("after")))
        })
        #expect(events.filter { if case .message = $0 { true } else { false } }
            == [.message(channelID: id, .text("before")), .message(channelID: id, .text("after"))])
        #expect(events.contains(.messageTooLarge(channelID: id)))
        #expect(server.channel(id)?.isOpen == true)
        try server.send(text: "reply", on: id)
        var back: [DataChannelEvent] = []
        #expect(pair.run(for: .seconds(60)) {
            drain(client, into: &back)
            return back.contains(.message(channelID: id, .text("reply")))
        })
    }

    /// A peer that writes its own DATA chunks straight to `b`, ignoring
    /// b's window: each chunk takes the next TSN, so every one is the
    /// "next expected TSN" a full window still takes.
    final class RawSender {
        let b: SCTPAssociation
        var tsn: UInt32
        init(_ b: SCTPAssociation) {
            self.b = b
            tsn = b.tracker.cumulativeTSN &+ 1
        }

        /// Chunks `b` sent back.
        var replies: [SCTPChunk] = []

        func send(_ chunks: [(ssn: UInt16, flags: UInt8, bytes: Int)], stream: UInt16 = 0, now: Duration) {
            let data = chunks.map { c -> SCTPChunk in
                defer { tsn &+= 1 }
                return .data(DataChunk(flags: c.flags, tsn: tsn, streamID: stream, streamSequence: c.ssn, ppid: 53,
                                       userData: ArraySlice(repeating: 7, count: c.bytes)))
            }
            let packet = SCTPPacket(sourcePort: 5000, destinationPort: 5000, verificationTag: b.localTag, chunks: data)
            b.handleInput(packet: packet.encode(), now: now)
            while let reply = b.pollTransmit(now: now) {
                largestReply = max(largestReply, reply.count)
                replies += SCTPPacket.decode(reply)?.chunks ?? []
            }
        }

        var largestReply = 0

        /// One single-chunk message at TSN `first + offset`, out of turn.
        func send(offset: UInt32, from first: UInt32, ssn: UInt16, now: Duration) {
            tsn = first &+ offset
            send([(ssn: ssn, flags: 3, bytes: 8)], now: now)
        }
    }

    static var held: Int { SCTPConfig().receiveBufferSize + SCTPConfig().maxMessageSize }

    /// Messages after a skipped SSN can never be delivered: they are held
    /// up to the window and one message more, however many come.
    @Test func messagesBehindASkippedSequenceNumberHoldNoMoreThanTheWindowAndOneMessage() throws {
        let pair = connectedPair(profile: .clean, seed: 65)
        let b = pair.b
        let attacker = RawSender(b)
        for i in 0..<20_000 {   // 20 MB, SSN 0 never sent
            attacker.send([(ssn: UInt16(i % 30_000 + 1), flags: 3, bytes: 1000)], now: pair.now)
        }
        #expect(b.reassembly.bufferedBytes <= Self.held)
        #expect(b.reassembly.bufferedBytes > SCTPConfig().receiveBufferSize / 2)
        #expect(b.receiverWindow == 0)
    }

    /// Fragments of messages that never end: the same bound.
    @Test func messagesThatNeverEndHoldNoMoreThanTheWindowAndOneMessage() throws {
        let pair = connectedPair(profile: .clean, seed: 66)
        let b = pair.b
        let attacker = RawSender(b)
        for i in 0..<20_000 {   // a B fragment of a new message each time, never an E
            attacker.send([(ssn: UInt16(i % 30_000), flags: DataChunk.beginningFlag, bytes: 1000)], stream: UInt16(i % 7), now: pair.now)
        }
        #expect(b.reassembly.bufferedBytes <= Self.held)
    }

    /// A window's worth of 1-byte chunks counts what holding each costs,
    /// not just its byte: a few tens of thousands of them, not millions.
    @Test func tinyChunksAreCountedWithWhatHoldingThemCosts() throws {
        let pair = connectedPair(profile: .clean, seed: 67)
        let b = pair.b
        let attacker = RawSender(b)
        var ssn: UInt16 = 1
        for _ in 0..<4000 {   // 200,000 one-byte messages, 50 a packet, SSN 0 never sent
            attacker.send((0..<50).map { _ in defer { ssn = ssn == 30_000 ? 1 : ssn + 1 }; return (ssn: ssn, flags: 3, bytes: 1) }, now: pair.now)
        }
        #expect(b.reassembly.heldChunks <= 70_000)   // (4 MiB + 256 KiB) / 65
        #expect(b.reassembly.heldChunks > 50_000)
    }

    /// DATA on a stream that was never negotiated is refused with an
    /// Invalid Stream Identifier error (RFC 9260 §6.5) and acknowledged, so
    /// it holds nothing and the other streams go on.
    @Test func dataOnAnUnnegotiatedStreamIsRefusedAndOtherStreamsGoOn() throws {
        let pair = connectedPair(profile: .clean, seed: 68)
        let b = pair.b
        let attacker = RawSender(b)
        attacker.send([(ssn: 0, flags: 3, bytes: 10)], stream: 65535, now: pair.now)
        attacker.send([(ssn: 0, flags: 3, bytes: 10)], stream: 0, now: pair.now)
        var events: [SCTPEvent] = []
        drainEvents(b, into: &events)
        #expect(events.map(Self.summary) == ["message 0: 10 bytes"])
        #expect(attacker.replies.contains { if case .error(let c) = $0 { Array(c.prefix(6)) == [0, 1, 0, 8, 0xFF, 0xFF] } else { false } })
        #expect(b.reassembly.bufferedBytes == 0)
        #expect(b.tracker.cumulativeTSN == attacker.tsn &- 1)
    }

    /// Thousands of holes: SACKs report as many gap blocks as fit one
    /// packet, a TSN beyond what a gap block can express is refused and
    /// holds nothing, and once the holes fill everything is delivered, in
    /// order, and nothing stays held.
    @Test func thousandsOfHolesStayWithinAPacketAndEverythingArrivesOnceFilled() throws {
        let pair = connectedPair(profile: .clean, seed: 69)
        let b = pair.b
        let attacker = RawSender(b)
        let first = attacker.tsn
        for i in stride(from: 1, to: 6000, by: 2) { attacker.send(offset: UInt32(i), from: first, ssn: UInt16(i), now: pair.now) }
        pair.now += .seconds(1)
        b.handleTimeout(now: pair.now)
        while let reply = b.pollTransmit(now: pair.now) { attacker.replies += SCTPPacket.decode(reply)?.chunks ?? [] }
        let blocks = attacker.replies.compactMap { if case .sack(let s) = $0 { s.gapAckBlocks.count } else { nil } }
        #expect(blocks.max() ?? 0 > 200)
        #expect(attacker.largestReply <= b.config.maxPacketSize)
        attacker.send(offset: 70_000, from: first, ssn: 9999, now: pair.now)
        #expect(b.reassembly.heldChunks == 3000)   // the odd offsets; not the one 70,000 ahead
        for i in stride(from: 0, to: 6000, by: 2) { attacker.send(offset: UInt32(i), from: first, ssn: UInt16(i), now: pair.now) }
        var events: [SCTPEvent] = []
        drainEvents(b, into: &events)
        #expect(events.count == 6000)
        #expect(events.allSatisfy { if case .message(0, 53, let bytes) = $0 { bytes.count == 8 } else { false } })
        #expect(b.reassembly.bufferedBytes == 0)
        #expect(b.tracker.cumulativeTSN == first &+ 5999)
    }
}

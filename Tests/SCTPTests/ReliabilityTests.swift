import Testing
@testable import SCTP

func isData(_ bytes: [UInt8]) -> Bool {
    guard let p = SCTPPacket.decode(bytes) else { return false }
    return p.chunks.contains { if case .data = $0 { return true } else { return false } }
}

func dataTSNs(_ bytes: [UInt8]) -> [UInt32] {
    guard let p = SCTPPacket.decode(bytes) else { return [] }
    return p.chunks.compactMap { if case .data(let d) = $0 { return d.tsn } else { return nil } }
}

@Suite struct ReliabilityTests {
    @Test func windowLimitedSenderNeverOverrunsReceiver() {
        var small = SCTPConfig()
        small.receiveBufferSize = 64 * 1024
        let pair = connectedPair(profile: LinkProfile(delay: .milliseconds(10)), seed: 11, configB: small)
        let a = pair.a, b = pair.b
        for i in 0..<40 { try? a.send(stream: 0, ppid: 53, bytes: payload(index: i, size: 20_000)) }
        // The receiving application does not read: buffered data must stay
        // within the advertised window (plus at most one chunk of probe).
        var maxHeld = 0
        _ = pair.run(for: .seconds(30)) {
            maxHeld = max(maxHeld, b.reassembly.bufferedBytes + b.eventBytes)
            return false
        }
        #expect(maxHeld <= small.receiveBufferSize + small.maxPacketSize)
        #expect(maxHeld >= small.receiveBufferSize / 2)
        #expect(!a.isFullyAcknowledged)
        // Now read everything: the window reopens and the rest flows.
        var got = 0
        #expect(pair.run(for: .seconds(120)) {
            while let e = b.pollEvent() { if case .message(_, _, let bytes) = e, bytes == payload(index: got, size: 20_000) { got += 1 } }
            return got == 40 && a.isFullyAcknowledged
        })
    }

    @Test func fastRetransmitRecoversALossWithoutTimeout() {
        let pair = connectedPair(profile: LinkProfile(delay: .milliseconds(5)), seed: 12)
        let a = pair.a, b = pair.b
        var droppedTSN: UInt32?
        var seenAgain = 0
        pair.filter = { toB, bytes in
            guard toB else { return bytes }
            let tsns = dataTSNs(bytes)
            if droppedTSN == nil, let t = tsns.first { droppedTSN = t; return nil }
            if let d = droppedTSN, tsns.contains(d) { seenAgain += 1 }
            return bytes
        }
        for i in 0..<20 { try? a.send(stream: 0, ppid: 53, bytes: payload(index: i, size: 1000)) }
        let start = pair.now
        var got = 0
        #expect(pair.run(for: .seconds(10)) {
            while let e = b.pollEvent() { if case .message = e { got += 1 } }
            return got == 20
        })
        #expect(seenAgain == 1)
        #expect(a.statistics.fastRetransmissions == 1)
        #expect(a.statistics.t3Expirations == 0)
        #expect(pair.now - start < a.currentRTO)
    }

    /// RFC 9260 fast-retransmits a chunk once; when that retransmission is
    /// lost too, newer chunks acknowledged after it mark it lost again
    /// (by send time, RFC 8985) instead of T3 collapsing cwnd to one MTU.
    @Test func lostFastRetransmissionIsResentWithoutTimeout() {
        let pair = connectedPair(profile: LinkProfile(delay: .milliseconds(5)), seed: 14)
        let a = pair.a, b = pair.b
        var droppedTSN: UInt32?
        var transmissions = 0
        pair.filter = { toB, bytes in
            guard toB else { return bytes }
            let tsns = dataTSNs(bytes)
            if droppedTSN == nil, let t = tsns.first { droppedTSN = t }
            guard let d = droppedTSN, tsns.contains(d) else { return bytes }
            transmissions += 1
            return transmissions <= 2 ? nil : bytes
        }
        for i in 0..<60 { try? a.send(stream: 0, ppid: 53, bytes: payload(index: i, size: 1000)) }
        let start = pair.now
        var got = 0
        #expect(pair.run(for: .seconds(10)) {
            while let e = b.pollEvent() { if case .message(_, _, let m) = e, m == payload(index: got, size: 1000) { got += 1 } }
            return got == 60
        })
        #expect(transmissions == 3)
        #expect(a.statistics.fastRetransmissions == 1)
        #expect(a.statistics.lostRetransmissions == 1)
        #expect(a.statistics.t3Expirations == 0)
        #expect(pair.now - start < a.config.rtoMin)
    }

    @Test func retransmissionTimeoutDoublesRTO() {
        let pair = connectedPair(profile: LinkProfile(delay: .milliseconds(5)), seed: 13)
        let a = pair.a
        pair.filter = { toB, bytes in toB ? nil : bytes }
        let before = a.currentRTO
        try? a.send(stream: 0, ppid: 51, bytes: Array("hello".utf8))
        pair.flush()
        guard let deadline = a.pollTimeout() else {
            Issue.record("no T3 timer")
            return
        }
        #expect(deadline - pair.now == before)
        pair.now = deadline
        a.handleTimeout(now: deadline)
        #expect(a.statistics.t3Expirations == 1)
        #expect(a.currentRTO == min(before * 2, a.config.rtoMax))
        #expect(a.pollTransmit(now: pair.now).map(isData) == true)
        pair.now = a.pollTimeout() ?? pair.now
        a.handleTimeout(now: pair.now)
        #expect(a.currentRTO == min(before * 4, a.config.rtoMax))
    }

    @Test func unansweredRetransmissionsEndTheAssociation() {
        let pair = connectedPair(profile: LinkProfile(delay: .milliseconds(5)), seed: 14)
        let a = pair.a
        pair.filter = { toB, bytes in toB ? nil : bytes }
        try? a.send(stream: 0, ppid: 51, bytes: [1])
        var events: [SCTPEvent] = []
        _ = pair.run(for: .seconds(3600)) {
            drainEvents(a, into: &events)
            return a.isClosed
        }
        #expect(events.last == .closed(.timeout))
    }

    @Test func forwardTSNSkipsAbandonedMessages() {
        let pair = connectedPair(profile: LinkProfile(delay: .milliseconds(5)), seed: 15)
        let a = pair.a, b = pair.b
        // Drop the whole first message (3 fragments) forever.
        var blocked: Set<UInt32> = []
        let first = a.retransmissionQueue.nextTSN
        for t in 0..<3 { blocked.insert(first &+ UInt32(t)) }
        pair.filter = { toB, bytes in
            guard toB, var p = SCTPPacket.decode(bytes) else { return bytes }
            p.chunks.removeAll { if case .data(let d) = $0 { return blocked.contains(d.tsn) } else { return false } }
            return p.chunks.isEmpty ? nil : p.encode()
        }
        try? a.send(stream: 2, ppid: 53, bytes: payload(index: 0, size: 3000))
        try? a.send(stream: 2, ppid: 53, bytes: payload(index: 1, size: 100))
        try? a.send(stream: 3, ppid: 53, bytes: payload(index: 2, size: 100), ordered: false)
        _ = pair.run(for: .milliseconds(200)) { false }
        var got: [Int] = []
        func collect() {
            while let e = b.pollEvent() {
                if case .message(let s, _, let bytes) = e { got.append(s == 2 ? (bytes.count == 100 ? 1 : 0) : 2) }
            }
        }
        collect()
        #expect(got == [2])  // unordered passes; ordered SSN 1 waits for SSN 0
        // The peer abandons message 0 (PR-SCTP) and tells us with FORWARD TSN.
        let fwd = SCTPPacket(sourcePort: 5000, destinationPort: 5000, verificationTag: b.localTag,
                             chunks: [.forwardTSN(ForwardTSNChunk(newCumulativeTSN: first &+ 2, streams: [.init(streamID: 2, streamSequence: 0)]))])
        b.handleInput(packet: fwd.encode(), now: pair.now)
        collect()
        #expect(got == [2, 1])
        #expect(b.tracker.cumulativeTSN == first &+ 4)
        #expect(b.reassembly.bufferedBytes == 0)
    }
}

@Suite struct DelayedAckTests {
    func sackCount(_ bytes: [UInt8]) -> Int {
        SCTPPacket.decode(bytes)?.chunks.filter { if case .sack = $0 { true } else { false } }.count ?? 0
    }

    @Test func singlePacketIsAcknowledgedAfterTheDelayedAckTimeout() throws {
        let pair = connectedPair(profile: LinkProfile(delay: .milliseconds(1)), seed: 41)
        let a = pair.a, b = pair.b
        try a.send(stream: 0, ppid: 51, bytes: [1])
        let p = try #require(a.pollTransmit(now: pair.now))
        b.handleInput(packet: p, now: pair.now)
        #expect(b.pollTransmit(now: pair.now) == nil)
        #expect(b.pollTimeout() == pair.now + b.config.delayedAckTimeout)
        b.handleTimeout(now: pair.now + b.config.delayedAckTimeout)
        #expect(b.pollTransmit(now: pair.now + b.config.delayedAckTimeout).map(sackCount) == 1)
    }

    @Test func everySecondPacketIsAcknowledgedAtOnce() throws {
        let pair = connectedPair(profile: LinkProfile(delay: .milliseconds(1)), seed: 42)
        let a = pair.a, b = pair.b
        try a.send(stream: 0, ppid: 53, bytes: payload(index: 0, size: 2000))
        let p1 = try #require(a.pollTransmit(now: pair.now)), p2 = try #require(a.pollTransmit(now: pair.now))
        b.handleInput(packet: p1, now: pair.now)
        #expect(b.pollTransmit(now: pair.now) == nil)
        b.handleInput(packet: p2, now: pair.now)
        #expect(b.pollTransmit(now: pair.now).map(sackCount) == 1)
    }

    @Test func outOfOrderPacketIsAcknowledgedAtOnceWithAGapBlock() throws {
        let pair = connectedPair(profile: LinkProfile(delay: .milliseconds(1)), seed: 43)
        let a = pair.a, b = pair.b
        try a.send(stream: 0, ppid: 53, bytes: payload(index: 0, size: 2000))
        _ = try #require(a.pollTransmit(now: pair.now))
        let p2 = try #require(a.pollTransmit(now: pair.now))
        b.handleInput(packet: p2, now: pair.now)
        let reply = try #require(b.pollTransmit(now: pair.now).flatMap { SCTPPacket.decode($0) })
        guard case .sack(let s)? = reply.chunks.first else {
            Issue.record("expected a SACK")
            return
        }
        #expect(s.gapAckBlocks == [GapAckBlock(start: 2, end: 2)])
    }
}

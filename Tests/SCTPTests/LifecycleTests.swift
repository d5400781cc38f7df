import Testing
@testable import SCTP

@Suite struct LifecycleTests {
    @Test func streamResetIsReportedOnBothSides() {
        let pair = connectedPair(profile: .hostile, seed: 21)
        let a = pair.a, b = pair.b
        for i in 0..<30 { try? a.send(stream: 4, ppid: 51, bytes: payload(index: i, size: 500)) }
        try? a.resetStreams([4])
        var ea: [SCTPEvent] = [], eb: [SCTPEvent] = []
        #expect(pair.run(for: .seconds(300)) {
            drainEvents(a, into: &ea)
            drainEvents(b, into: &eb)
            return ea.contains(.outgoingStreamReset([4])) && eb.contains(.streamReset([4]))
        })
        // Every message sent before the reset arrived before the reset event.
        let resetIndex = eb.firstIndex(of: .streamReset([4])) ?? 0
        #expect(eb[..<resetIndex].filter { if case .message = $0 { true } else { false } }.count == 30)
        // The stream is usable again from SSN 0.
        try? a.send(stream: 4, ppid: 51, bytes: [9])
        #expect(pair.run(for: .seconds(60)) {
            drainEvents(b, into: &eb)
            return eb.last == .message(stream: 4, ppid: 51, bytes: [9])
        })
    }

    @Test func shutdownCompletesAfterEverythingIsDelivered() {
        let pair = connectedPair(profile: .hostile, seed: 22)
        let a = pair.a, b = pair.b
        for i in 0..<50 { try? a.send(stream: 0, ppid: 53, bytes: payload(index: i, size: 3000)) }
        a.close()
        #expect(throws: SCTPError.closing) { try a.send(stream: 0, ppid: 53, bytes: [1]) }
        var ea: [SCTPEvent] = [], eb: [SCTPEvent] = []
        #expect(pair.run(for: .seconds(600)) {
            drainEvents(a, into: &ea)
            drainEvents(b, into: &eb)
            return a.isClosed && b.isClosed
        })
        #expect(ea.last == .closed(.shutdown))
        #expect(eb.last == .closed(.shutdown))
        let messages = eb.compactMap { e -> [UInt8]? in if case .message(_, _, let b) = e { return b } else { return nil } }
        #expect(messages == (0..<50).map { payload(index: $0, size: 3000) })
    }

    /// The peer's SHUTDOWN is reported as soon as everything we sent is
    /// acknowledged, without waiting for SHUTDOWN COMPLETE, which a peer
    /// whose process already exited never sends.
    @Test func aPeerShutdownIsReportedOnceOurDataIsAcknowledged() {
        let pair = connectedPair(profile: LinkProfile(delay: .milliseconds(20)), seed: 25)
        let a = pair.a, b = pair.b
        try? b.send(stream: 0, ppid: 51, bytes: [7])
        pair.filter = { toB, bytes in toB ? bytes : nil }   // nothing from b reaches a any more
        a.close()
        var eb: [SCTPEvent] = []
        #expect(pair.run(for: .seconds(2)) {
            drainEvents(b, into: &eb)
            return eb.contains(.peerShutDown)
        } == false, "b's message is not acknowledged: no SHUTDOWN ACK yet")
        pair.filter = nil
        #expect(pair.run(for: .seconds(10)) {
            drainEvents(b, into: &eb)
            return eb.contains(.peerShutDown)
        })
        #expect(!b.isClosed, "SHUTDOWN COMPLETE is still outstanding")
    }

    @Test func simultaneousShutdownCompletes() {
        let pair = connectedPair(profile: LinkProfile(delay: .milliseconds(20)), seed: 23)
        let a = pair.a, b = pair.b
        a.close()
        b.close()
        #expect(pair.run(for: .seconds(60)) { a.isClosed && b.isClosed })
    }

    @Test func abortIsReportedToThePeer() {
        let pair = connectedPair(profile: LinkProfile(delay: .milliseconds(20)), seed: 24)
        let a = pair.a, b = pair.b
        a.abort()
        var ea: [SCTPEvent] = [], eb: [SCTPEvent] = []
        #expect(pair.run(for: .seconds(5)) {
            drainEvents(a, into: &ea)
            drainEvents(b, into: &eb)
            return b.isClosed
        })
        #expect(ea == [.closed(.abortedLocally)])
        #expect(eb == [.closed(.abortedByPeer)])
    }

    @Test func abortWithWrongTagIsIgnored() {
        let pair = connectedPair(profile: .clean, seed: 25)
        let b = pair.b
        let forged = SCTPPacket(sourcePort: 5000, destinationPort: 5000, verificationTag: b.localTag &+ 1, chunks: [.abort(reflectedTag: false, causes: [])])
        b.handleInput(packet: forged.encode(), now: pair.now)
        #expect(b.isEstablished)
    }

    @Test func heartbeatIsEchoed() {
        let pair = connectedPair(profile: .clean, seed: 26)
        let b = pair.b
        let info: [UInt8] = [0, 1, 0, 8, 1, 2, 3, 4]
        let hb = SCTPPacket(sourcePort: 5000, destinationPort: 5000, verificationTag: b.localTag, chunks: [.heartbeat(info: info[...])])
        b.handleInput(packet: hb.encode(), now: pair.now)
        let reply = b.pollTransmit(now: pair.now).flatMap { SCTPPacket.decode($0) }
        #expect(reply?.chunks.first == .heartbeatAck(info: info[...]))
        #expect(reply?.verificationTag == b.peerTag)
    }

    @Test func unknownChunkWithReportBitIsReportedAndSkipped() {
        let pair = connectedPair(profile: .clean, seed: 27)
        let b = pair.b
        let p = SCTPPacket(sourcePort: 5000, destinationPort: 5000, verificationTag: b.localTag,
                           chunks: [.unknown(type: 0xC7, flags: 0, value: [1, 2, 3][...]),
                                    .data(DataChunk(flags: 3, tsn: b.tracker.cumulativeTSN &+ 1, streamID: 0, streamSequence: 0, ppid: 51, userData: [65][...]))])
        b.handleInput(packet: p.encode(), now: pair.now)
        #expect(b.pollEvent() == .message(stream: 0, ppid: 51, bytes: [65]))
        let reply = b.pollTransmit(now: pair.now).flatMap { SCTPPacket.decode($0) }
        #expect(reply?.chunks.contains { if case .error = $0 { true } else { false } } == true)
    }
}

/// RFC 9260 §8.4 rule 5: the SHUTDOWN COMPLETE is sent once; when it is
/// lost, the peer's retransmitted SHUTDOWN ACK reaches an association that
/// has ended and is answered with a SHUTDOWN COMPLETE (T bit), so both
/// sides close with `.shutdown` instead of the peer timing out.
@Test func aLostShutdownCompleteIsSentAgainForTheRetransmittedShutdownAck() {
    let pair = connectedPair(profile: .clean, seed: 5)
    let a = pair.a, b = pair.b
    var dropped = 0
    pair.filter = { toB, bytes in
        // Chunk type 14 (SHUTDOWN COMPLETE) right after the 12-byte common header.
        if toB, bytes.count > 12, bytes[12] == 14, dropped == 0 { dropped += 1; return nil }
        return bytes
    }
    a.close()
    var ea: [SCTPEvent] = [], eb: [SCTPEvent] = []
    #expect(pair.run(for: .seconds(120)) {
        drainEvents(a, into: &ea)
        drainEvents(b, into: &eb)
        return a.isClosed && b.isClosed
    })
    #expect(dropped == 1)
    #expect(ea.last == .closed(.shutdown))
    #expect(eb.last == .closed(.shutdown))
}

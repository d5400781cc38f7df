import TestSupport
import Testing
@testable import SCTP

extension DataChannelEndpoint: SansIOEndpoint {}

func endpointPair(profile: LinkProfile, seed: UInt64) -> SimulatedPair<DataChannelEndpoint> {
    var r1 = SeededRandom(seed: seed &* 3 &+ 1), r2 = SeededRandom(seed: seed &* 3 &+ 2)
    let client = DataChannelEndpoint(role: .client, using: &r1)
    let server = DataChannelEndpoint(role: .server, using: &r2)
    let pair = SimulatedPair(client, server, profile: profile, seed: seed)
    client.connect(now: pair.now)
    server.connect(now: pair.now)
    return pair
}

func drain(_ e: DataChannelEndpoint, into list: inout [DataChannelEvent]) {
    while let ev = e.pollEvent() { list.append(ev) }
}

@Suite struct DataChannelTests {
    @Test func dcepMessagesRoundTripInRFC8832Layout() {
        let open = DataChannelOpen(channelType: 0x80, priority: 256, reliabilityParameter: 0, label: "chat", protocolName: "")
        let bytes = DCEPMessage.open(open).encode()
        #expect(bytes == [3, 0x80, 1, 0, 0, 0, 0, 0, 0, 4, 0, 0] + Array("chat".utf8))
        #expect(DCEPMessage.decode(bytes) == .open(open))
        #expect(DCEPMessage.decode([2]) == .ack)
        #expect(DCEPMessage.decode([3, 0, 0]) == nil)
        #expect(DCEPMessage.decode([3, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 1]) == nil)
    }

    @Test func channelOpenedBeforeConnectIsAnnouncedOnBothSidesWithEvenIdForClient() {
        let pair = endpointPair(profile: .hostile, seed: 1)
        let c = pair.a, s = pair.b
        let id = try? c.openChannel(label: "chat")
        #expect(id == 0)
        var ec: [DataChannelEvent] = [], es: [DataChannelEvent] = []
        #expect(pair.run(for: .seconds(60)) {
            drain(c, into: &ec)
            drain(s, into: &es)
            return es.contains(.channelOpen(id: 0, label: "chat"))
        })
        #expect(ec.contains(.channelOpen(id: 0, label: "chat")))
        #expect((try? s.openChannel(label: "ctl")) == 1)
        #expect((try? c.openChannel(label: "second")) == 2)
    }

    @Test func textBinaryAndEmptyMessagesArriveAsSent() throws {
        let pair = endpointPair(profile: .hostile, seed: 2)
        let c = pair.a, s = pair.b
        let id = try c.openChannel(label: "chat")
        try c.send(text: "héllo", on: id)
        try c.send(text: "", on: id)
        try c.send(binary: [], on: id)
        try c.send(binary: [0, 1, 2], on: id)
        var es: [DataChannelEvent] = []
        _ = pair.run(for: .seconds(60)) {
            drain(s, into: &es)
            return es.count >= 6
        }
        #expect(es == [.connected, .channelOpen(id: 0, label: "chat"),
                       .message(channelID: 0, .text("héllo")), .message(channelID: 0, .text("")),
                       .message(channelID: 0, .binary([])), .message(channelID: 0, .binary([0, 1, 2]))])
        // The server answers on the same channel.
        try s.send(text: "hi back", on: 0)
        var ec: [DataChannelEvent] = []
        #expect(pair.run(for: .seconds(60)) {
            drain(c, into: &ec)
            return ec.contains(.message(channelID: 0, .text("hi back")))
        })
        #expect(pair.run(for: .seconds(60)) { c.isFullyAcknowledged && s.isFullyAcknowledged })
    }

    @Test func emptyMessagesAreSentAsOneZeroByteWithEmptyPPIDs() throws {
        let pair = endpointPair(profile: .clean, seed: 3)
        let c = pair.a
        _ = pair.run(for: .seconds(5)) { c.isConnected && pair.b.isConnected }
        let id = try c.openChannel(label: "x")
        var seen: [(UInt32, [UInt8])] = []
        pair.filter = { toB, bytes in
            if toB, let p = SCTPPacket.decode(bytes) {
                for case .data(let d) in p.chunks { seen.append((d.ppid, Array(d.userData))) }
            }
            return bytes
        }
        try c.send(text: "", on: id)
        try c.send(binary: [], on: id)
        _ = pair.run(for: .seconds(5)) { c.isFullyAcknowledged }
        #expect(seen.contains { $0.0 == 56 && $0.1 == [0] })
        #expect(seen.contains { $0.0 == 57 && $0.1 == [0] })
    }

    @Test func closingAChannelClosesItOnBothSides() throws {
        let pair = endpointPair(profile: .hostile, seed: 4)
        let c = pair.a, s = pair.b
        let id = try c.openChannel(label: "chat")
        try c.send(text: "last words", on: id)
        c.closeChannel(id)
        #expect(throws: SCTPError.channelClosed) { try c.send(text: "too late", on: id) }
        var ec: [DataChannelEvent] = [], es: [DataChannelEvent] = []
        #expect(pair.run(for: .seconds(120)) {
            drain(c, into: &ec)
            drain(s, into: &es)
            return ec.contains(.channelClosed(id: id)) && es.contains(.channelClosed(id: id))
                && c.channel(id) == nil && s.channel(id) == nil
        })
        #expect(es.contains(.message(channelID: id, .text("last words"))))
        // The id is free again and a new channel can use it.
        #expect((try? c.openChannel(label: "again")) == id)
    }

    @Test func shutdownClosesChannelsAndTheAssociation() throws {
        let pair = endpointPair(profile: .hostile, seed: 5)
        let c = pair.a, s = pair.b
        let id = try c.openChannel(label: "chat")
        for i in 0..<100 { try c.send(text: "message \(i)", on: id) }
        c.close()
        var es: [DataChannelEvent] = []
        #expect(pair.run(for: .seconds(600)) {
            drain(s, into: &es)
            return es.last == .closed(.shutdown)
        })
        let texts = es.compactMap { e -> String? in if case .message(_, .text(let t)) = e { return t } else { return nil } }
        #expect(texts == (0..<100).map { "message \($0)" })
        #expect(es.contains(.channelClosed(id: id)))
    }
}

/// Closing the way browsers expect (RFC 8831 §6.7): channels reset first,
/// SHUTDOWN only once those resets are answered; both sides see the channel
/// close (not only the association), on a lossy link.
@Test func channelsClosedJustBeforeShutdownAreResetFirst() throws {
    let pair = endpointPair(profile: .hostile, seed: 9)
    let c = pair.a, s = pair.b
    let id = try c.openChannel(label: "chat")
    var ec: [DataChannelEvent] = [], es: [DataChannelEvent] = []
    #expect(pair.run(for: .seconds(120)) {
        drain(c, into: &ec)
        drain(s, into: &es)
        return es.contains(.channelOpen(id: id, label: "chat"))
    })
    try c.send(text: "last words", on: id)
    var sent: [String] = []   // what the closing side sends, in order
    pair.filter = { toB, bytes in
        if toB, let packet = SCTPPacket.decode(bytes) {
            for chunk in packet.chunks {
                switch chunk {
                case .reconfig(let parameters) where parameters.contains { if case .outgoingResetRequest = $0 { true } else { false } }:
                    sent.append("reset")
                case .shutdown: sent.append("shutdown")
                default: break
                }
            }
        }
        return bytes
    }
    c.closeChannel(id)
    c.close()
    #expect(pair.run(for: .seconds(600)) {
        drain(c, into: &ec)
        drain(s, into: &es)
        return c.isClosed && s.isClosed
    })
    #expect(sent.first == "reset" && sent.contains("shutdown"), "\(sent)")
    #expect(sent.firstIndex(of: "shutdown")! > sent.lastIndex(of: "reset")!, "no reset after SHUTDOWN: \(sent)")
    #expect(es.contains(.message(channelID: id, .text("last words"))))
    let closedAt = es.firstIndex(of: .channelClosed(id: id)), endedAt = es.firstIndex(of: .closed(.shutdown))
    #expect(closedAt != nil && endedAt != nil && closedAt! < endedAt!, "\(es)")
    #expect(ec.last == .closed(.shutdown))
}

import STUN
import Testing
import TURN
import TURNServer

@Test func lifetimesAreCappedAt3600AndRaisedToTheDefault() {
    let lab = RelayLab()
    let long = RawSession(lab, RelayLab.tuple(1), user: "a")
    long.learnNonce()
    #expect(long.send(.allocate, [.requestedTransport(17), .lifetime(86_400)])?.lifetime == 3600)
    let short = RawSession(lab, RelayLab.tuple(2), user: "b")
    short.learnNonce()
    #expect(short.send(.allocate, [.requestedTransport(17), .lifetime(30)])?.lifetime == 600)
    #expect(long.send(.refresh, [.lifetime(100_000)])?.lifetime == 3600)
    #expect(long.send(.refresh, [])?.lifetime == 600)
}

@Test func refreshWithLifetimeZeroDeletesTheAllocation() {
    let lab = RelayLab()
    let session = RawSession(lab, RelayLab.tuple(1))
    _ = session.allocate()
    let reply = session.send(.refresh, [.lifetime(0)])
    #expect(reply?.isSuccess == true && reply?.lifetime == 0)
    #expect(lab.server.allocationCount == 0)
    #expect(lab.openRelays.isEmpty)
}

@Test func aPermissionLastsExactly300Seconds() throws {
    let lab = RelayLab()
    let session = RawSession(lab, RelayLab.tuple(1))
    let relayed = try #require(session.allocate())
    let peer = STUNAddress(ipv4: 198, 51, 100, 9, port: 7)
    #expect(session.send(.createPermission, [.xorPeerAddress(peer)])?.isSuccess == true)
    lab.now += .seconds(299)
    #expect(lab.raw(dataIndication(to: peer), from: session.tuple).isEmpty)
    #expect(lab.outside.count == 1)
    lab.apply(lab.server.handlePeer([7], from: peer, relay: relayed, now: lab.now))
    #expect(lab.rawReplies[session.tuple]?.count == 1)
    lab.now += .seconds(1)
    _ = lab.raw(dataIndication(to: peer), from: session.tuple)
    lab.apply(lab.server.handlePeer([7], from: peer, relay: relayed, now: lab.now))
    #expect(lab.outside.count == 1)
    #expect(lab.rawReplies[session.tuple]?.isEmpty ?? true)
}

@Test func aChannelLasts600SecondsAndItsPermission300UnlessRefreshed() throws {
    let lab = RelayLab()
    let session = RawSession(lab, RelayLab.tuple(1))
    _ = try #require(session.allocate())
    let peer = STUNAddress(ipv4: 198, 51, 100, 9, port: 7)
    #expect(session.send(.channelBind, [.channelNumber(0x4000), .xorPeerAddress(peer)])?.isSuccess == true)
    let frame = ChannelData(number: 0x4000, data: [9, 9]).encoded(padded: false)
    _ = lab.raw(frame, from: session.tuple)
    #expect(lab.outside.count == 1)
    // The channel outlives the permission the bind installed: refresh the permission only.
    lab.now += .seconds(290)
    #expect(session.send(.createPermission, [.xorPeerAddress(peer)])?.isSuccess == true)
    lab.now += .seconds(290)
    #expect(session.send(.createPermission, [.xorPeerAddress(peer)])?.isSuccess == true)
    _ = lab.raw(frame, from: session.tuple)
    #expect(lab.outside.count == 2)
    lab.now += .seconds(20)
    _ = lab.raw(frame, from: session.tuple)
    #expect(lab.outside.count == 2)
    // Rebinding after expiry works, even to the same number (the nonce has gone stale too).
    session.learnNonce()
    #expect(session.send(.channelBind, [.channelNumber(0x4000), .xorPeerAddress(peer)])?.isSuccess == true)
}

@Test func channelNumbersOutside4000To4FFFAreRefusedAndNeverRelayed() throws {
    let lab = RelayLab()
    let session = RawSession(lab, RelayLab.tuple(1))
    _ = try #require(session.allocate())
    let peer = STUNAddress(ipv4: 198, 51, 100, 9, port: 7)
    for number: UInt16 in [0x0000, 0x3FFF, 0x5000, 0x7FFF, 0xFFFF] {
        #expect(session.send(.channelBind, [.channelNumber(number), .xorPeerAddress(peer)])?.code == 400)
    }
    #expect(session.send(.channelBind, [.channelNumber(0x4FFF), .xorPeerAddress(peer)])?.isSuccess == true)
    // A bound number to another peer, or a bound peer to another number: 400.
    #expect(session.send(.channelBind, [.channelNumber(0x4FFF), .xorPeerAddress(peer.with(port: 8))])?.code == 400)
    #expect(session.send(.channelBind, [.channelNumber(0x4FFE), .xorPeerAddress(peer)])?.code == 400)
    // ChannelData on an unbound or reserved number goes nowhere.
    for number: UInt16 in [0x4000, 0x5000, 0x7FFF] {
        _ = lab.raw([UInt8(number >> 8), UInt8(number & 0xFF), 0, 1, 42, 0, 0, 0], from: session.tuple)
    }
    // A truncated frame on the bound number too.
    _ = lab.raw([0x4F, 0xFF, 0, 9, 1], from: session.tuple)
    #expect(lab.outside.isEmpty)
}

@Test func relayedTrafficOverTheBandwidthCapIsDropped() throws {
    let lab = RelayLab { $0.bandwidthPerAllocation = 1000 }
    let session = RawSession(lab, RelayLab.tuple(1))
    _ = try #require(session.allocate())
    let peer = STUNAddress(ipv4: 198, 51, 100, 9, port: 7)
    #expect(session.send(.channelBind, [.channelNumber(0x4000), .xorPeerAddress(peer)])?.isSuccess == true)
    let frame = ChannelData(number: 0x4000, data: [UInt8](repeating: 1, count: 400)).encoded(padded: false)
    for _ in 0..<5 { _ = lab.raw(frame, from: session.tuple) }
    #expect(lab.outside.count == 2)
    #expect(lab.server.statistics.droppedOverBandwidth == 3)
    lab.now += .seconds(1)
    _ = lab.raw(frame, from: session.tuple)
    #expect(lab.outside.count == 3)
}

@Test func anAllocationFloodFromOneUserNeverExceedsItsQuota() {
    let lab = RelayLab { $0.allocationsPerUser = 5 }
    var refused = 0
    for port in UInt16(1)...500 {
        let session = RawSession(lab, RelayLab.tuple(9, port: port), user: "flood")
        session.learnNonce()
        if session.send(.allocate, [.requestedTransport(17)])?.code == 486 { refused += 1 }
    }
    #expect(lab.server.allocationCount == 5)
    #expect(refused == 495)
    #expect(lab.openRelays.count == 5)
}

private func dataIndication(to peer: STUNAddress) -> [UInt8] {
    STUNMessage(type: STUNMessageType(method: .send, messageClass: .indication), transactionID: STUNTransactionID(high: 3, low: 3),
                attributes: [.xorPeerAddress(peer), .data([1, 2, 3])]).encoded()
}

import STUN
import Testing
import TURN
import TURNServer

@Test func aRESTCredentialAllocatesARelayedAddressForTheDefaultLifetime() throws {
    let lab = RelayLab()
    let alice = RelayLab.tuple(1)
    let client = lab.addClient(alice)
    let relayed = try #require(client.relayedAddress)
    #expect(lab.takeEvents(alice) == [.allocated(relayed: relayed, mapped: alice.client, lifetime: .seconds(600))])
    #expect(lab.server.allocationCount == 1)
    #expect(lab.openRelays == [relayed])
    #expect(lab.server.relayedAddress(for: alice) == relayed)
}

@Test func twoRelayedClientsTalkThroughEachOthersRelayedAddresses() throws {
    let lab = RelayLab()
    let (alice, bob) = (RelayLab.tuple(1), RelayLab.tuple(2))
    let a = lab.addClient(alice, user: "alice"), b = lab.addClient(bob, user: "bob")
    let (aRelay, bRelay) = (try #require(a.relayedAddress), try #require(b.relayedAddress))
    _ = lab.takeEvents(alice); _ = lab.takeEvents(bob)
    b.createPermission(for: aRelay, now: lab.now)
    lab.pump()
    #expect(a.send(Array("hello".utf8), to: bRelay, now: lab.now))
    lab.pump()
    #expect(lab.takeEvents(bob).contains(.data(from: aRelay, Array("hello".utf8))))
    // Over a channel (ChannelData both ways) as well.
    let number = try #require(a.bindChannel(to: bRelay, now: lab.now))
    lab.pump()
    #expect(lab.takeEvents(alice).contains(.channelBound(bRelay, number: number)))
    _ = b.bindChannel(to: aRelay, now: lab.now)
    lab.pump()
    a.send(Array("over a channel".utf8), to: bRelay, now: lab.now)
    b.send(Array("back".utf8), to: aRelay, now: lab.now)
    lab.pump()
    #expect(lab.takeEvents(bob).contains(.data(from: aRelay, Array("over a channel".utf8))))
    #expect(lab.takeEvents(alice).contains(.data(from: bRelay, Array("back".utf8))))
    #expect(lab.server.statistics.packetsToPeers >= 3)
    #expect(lab.server.statistics.bytesToClients >= 5 + 14 + 4)
}

@Test func nothingIsRelayedBeforeAPermissionExists() throws {
    let lab = RelayLab()
    let alice = RelayLab.tuple(1)
    let client = lab.addClient(alice)
    let relayed = try #require(client.relayedAddress)
    _ = lab.takeEvents(alice)
    let stranger = STUNAddress(ipv4: 198, 51, 100, 20, port: 9)
    lab.fromPeer(Array("unsolicited".utf8), peer: stranger, to: relayed)
    #expect(lab.takeEvents(alice).isEmpty)
    client.createPermission(for: stranger, now: lab.now)
    lab.pump()
    lab.fromPeer(Array("welcome".utf8), peer: stranger.with(port: 10), to: relayed)
    // Permissions are per IP (RFC 8656 §9): any port of that IP.
    #expect(lab.takeEvents(alice).contains(.data(from: stranger.with(port: 10), Array("welcome".utf8))))
}

@Test func anAllocationThatIsNotRefreshedExpiresAndClosesItsRelay() throws {
    let lab = RelayLab()
    let alice = RelayLab.tuple(1)
    let client = lab.addClient(alice)
    let relayed = try #require(client.relayedAddress)
    // The client would refresh by itself: take it away.
    lab.clients[alice] = nil
    lab.advance(by: .seconds(599))
    #expect(lab.server.allocationCount == 1)
    lab.advance(by: .seconds(1))
    #expect(lab.server.allocationCount == 0)
    #expect(!lab.openRelays.contains(relayed))
    #expect(lab.server.pollTimeout() == nil)
}

@Test func aRefreshingClientKeepsItsAllocationPastTheFirstLifetime() throws {
    let lab = RelayLab()
    let alice = RelayLab.tuple(1)
    let client = lab.addClient(alice)
    lab.advance(by: .seconds(3000))
    #expect(lab.server.allocationCount == 1)
    #expect(client.isAllocated)
}

@Test func deallocateDeletesTheAllocationAtOnce() {
    let lab = RelayLab()
    let alice = RelayLab.tuple(1)
    let client = lab.addClient(alice)
    client.deallocate(now: lab.now)
    lab.pump()
    #expect(lab.takeEvents(alice).contains(.deallocated))
    #expect(lab.server.allocationCount == 0)
    #expect(lab.openRelays.isEmpty)
}

@Test func aClosedStreamTakesItsAllocationWithIt() {
    let lab = RelayLab()
    let alice = RelayLab.tuple(1, transport: .tcp)
    lab.addClient(alice)
    #expect(lab.server.allocationCount == 1)
    lab.apply(lab.server.clientClosed(alice))
    #expect(lab.server.allocationCount == 0)
    #expect(lab.openRelays.isEmpty)
}

@Test func channelDataOverAStreamIsPaddedToFourBytes() throws {
    let lab = RelayLab()
    let alice = RelayLab.tuple(1, transport: .tcp)
    let client = lab.addClient(alice)
    let relayed = try #require(client.relayedAddress)
    let peer = STUNAddress(ipv4: 198, 51, 100, 20, port: 9)
    let number = try #require(client.bindChannel(to: peer, now: lab.now))
    lab.pump()
    lab.clients[alice] = nil
    lab.rawReplies[alice] = []
    lab.apply(lab.server.handlePeer([1, 2, 3, 4, 5], from: peer, relay: relayed, now: lab.now))
    let frame = try #require(lab.rawReplies[alice]?.first)
    #expect(frame.count == 12)
    #expect(ChannelData.decode(frame) == ChannelData(number: number, data: [1, 2, 3, 4, 5]))
}

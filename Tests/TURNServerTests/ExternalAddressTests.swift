import STUN
import Testing
import TURN
import TURNServer

/// Behind a 1:1 NAT (`serve --turn-external-ip PUBLIC[/LOCAL]`, coturn's
/// `external-ip`): clients are told the public relayed address, the
/// relay stays bound on the local one, and two clients of this server
/// reach each other by their public addresses without the NAT looping
/// their traffic back in.
private let publicIP: [UInt8] = [203, 0, 113, 7]

private func natLab(local: [UInt8]? = nil) -> RelayLab {
    RelayLab { $0.externalAddresses = [TURNExternalAddress(public: publicIP, local: local)!] }
}

@Test func xorRelayedAddressAdvertisesThePublicAddressOnTheBoundPort() throws {
    let lab = natLab()
    let alice = RelayLab.tuple(1)
    let client = lab.addClient(alice)
    let advertised = try #require(client.relayedAddress)
    let bound = try #require(lab.openRelays.first)
    #expect(advertised == STUNAddress(ip: publicIP, port: bound.port))
    #expect(bound.ip == [192, 0, 2, 1])
    // Peers reach the bound socket (the NAT forwards to it) and are heard.
    let peer = STUNAddress(ipv4: 198, 51, 100, 20, port: 9)
    client.createPermission(for: peer, now: lab.now)
    lab.pump()
    _ = lab.takeEvents(alice)
    lab.fromPeer(Array("in".utf8), peer: peer, to: bound)
    #expect(lab.takeEvents(alice).contains(.data(from: peer, Array("in".utf8))))
    #expect(client.send(Array("out".utf8), to: peer, now: lab.now))
    lab.pump()
    #expect(lab.outside.last.map { [$0.relay, $0.peer] } == [bound, peer])
}

@Test func aMappingForAnotherLocalAddressLeavesRelayedAddressesAlone() throws {
    let lab = natLab(local: [10, 0, 0, 5])
    let client = lab.addClient(RelayLab.tuple(1))
    #expect(client.relayedAddress?.ip == [192, 0, 2, 1])
}

@Test func twoClientsBehindTheNATTalkByTheirPublicAddresses() throws {
    let lab = natLab(local: [192, 0, 2, 1])
    let (alice, bob) = (RelayLab.tuple(1), RelayLab.tuple(2))
    let a = lab.addClient(alice, user: "alice"), b = lab.addClient(bob, user: "bob")
    let (aPublic, bPublic) = (try #require(a.relayedAddress), try #require(b.relayedAddress))
    #expect(aPublic.ip == publicIP && bPublic.ip == publicIP)
    _ = lab.takeEvents(alice); _ = lab.takeEvents(bob)
    // 203.0.113.7 is not globally routable, yet each is the other's relay here.
    b.createPermission(for: aPublic, now: lab.now)
    a.createPermission(for: bPublic, now: lab.now)
    lab.pump()
    #expect(lab.takeEvents(alice).contains(.permissionCreated(bPublic)))
    #expect(a.send(Array("hello".utf8), to: bPublic, now: lab.now))
    lab.pump()
    // Delivered inside the server (nothing went out to the public address), from alice's public address.
    #expect(lab.outside.isEmpty)
    #expect(lab.takeEvents(bob).contains(.data(from: aPublic, Array("hello".utf8))))
    let number = try #require(b.bindChannel(to: aPublic, now: lab.now))
    lab.pump()
    #expect(lab.takeEvents(bob).contains(.channelBound(aPublic, number: number)))
    b.send(Array("back".utf8), to: aPublic, now: lab.now)
    lab.pump()
    #expect(lab.takeEvents(alice).contains(.data(from: bPublic, Array("back".utf8))))
    #expect(lab.outside.isEmpty)
}

@Test func anExternalAddressMustMatchItsLocalOnesFamily() {
    #expect(TURNExternalAddress(public: publicIP, local: [UInt8](repeating: 0, count: 16)) == nil)
    #expect(TURNExternalAddress(public: [1, 2, 3]) == nil)
    #expect(TURNExternalAddress(public: publicIP, local: [10, 0, 0, 5]) != nil)
}

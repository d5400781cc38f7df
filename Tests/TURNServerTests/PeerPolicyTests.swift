import STUN
import Testing
import TURN
import TURNServer

private let forbidden: [(String, STUNAddress)] = [
    ("loopback", STUNAddress(ipv4: 127, 0, 0, 1, port: 8080)),
    ("RFC 1918", STUNAddress(ipv4: 10, 1, 2, 3, port: 22)),
    ("RFC 1918", STUNAddress(ipv4: 192, 168, 1, 1, port: 80)),
    ("RFC 1918", STUNAddress(ipv4: 172, 20, 0, 1, port: 80)),
    ("CGNAT", STUNAddress(ipv4: 100, 64, 0, 1, port: 80)),
    ("link-local", STUNAddress(ipv4: 169, 254, 169, 254, port: 80)),
    ("multicast", STUNAddress(ipv4: 224, 0, 0, 251, port: 5353)),
    ("unspecified", STUNAddress(ipv4: 0, 0, 0, 0, port: 80)),
    ("IPv6 loopback", STUNAddress(ipv6: (0, 0, 0, 0, 0, 0, 0, 1), port: 80)),
    ("IPv6 ULA", STUNAddress(ipv6: (0xfd00, 0, 0, 0, 0, 0, 0, 1), port: 80)),
    ("IPv6 link-local", STUNAddress(ipv6: (0xfe80, 0, 0, 0, 0, 0, 0, 1), port: 80)),
    ("IPv4-mapped loopback", STUNAddress(ipv6: (0, 0, 0, 0, 0, 0xffff, 0x7f00, 1), port: 80)),
    ("NAT64 of RFC 1918", STUNAddress(ipv6: (0x64, 0xff9b, 0, 0, 0, 0, 0x0a00, 1), port: 80)),
]

@Test(arguments: forbidden.map(\.1))
func theDefaultPolicyForbidsNonGlobalPeers(peer: STUNAddress) {
    #expect(TURNPeerPolicy().verdict(for: peer) == .notGlobal)
}

@Test func permissionsAndChannelsForForbiddenPeersAre403() {
    let lab = RelayLab()
    let session = RawSession(lab, RelayLab.tuple(1))
    _ = session.allocate()
    for (_, peer) in forbidden where peer.family == .ipv4 {
        #expect(session.send(.createPermission, [.xorPeerAddress(peer)])?.code == 403)
        #expect(session.send(.channelBind, [.channelNumber(0x4001), .xorPeerAddress(peer)])?.code == 403)
    }
    // One bad peer among good ones: none is installed (all or nothing).
    let good = STUNAddress(ipv4: 198, 51, 100, 1, port: 1)
    #expect(session.send(.createPermission, [.xorPeerAddress(good), .xorPeerAddress(forbidden[0].1)])?.code == 403)
    lab.rawReplies[session.tuple] = []
    lab.fromPeer([1], peer: good, to: lab.server.relayedAddress(for: session.tuple)!)
    #expect(lab.rawReplies[session.tuple]?.isEmpty ?? true)
    #expect(lab.server.statistics.refusedPeers > 0)
}

@Test func anAllowedBlockOpensPrivatePeersButNeverTheServersOwnPorts() throws {
    let loopback = try #require(TURNPeerPolicy.Prefix(ip: [127, 0, 0, 0], length: 8))
    let policy = TURNPeerPolicy(allowed: [loopback], ownAddresses: [[127, 0, 0, 1]], servicePorts: [3478, 8080])
    #expect(policy.verdict(for: STUNAddress(ipv4: 127, 0, 0, 1, port: 50_000)) == .allowed)
    #expect(policy.verdict(for: STUNAddress(ipv4: 127, 0, 0, 1, port: 8080)) == .serverPort)
    #expect(policy.verdict(for: STUNAddress(ipv4: 127, 0, 0, 1, port: 3478)) == .serverPort)
    #expect(policy.verdict(for: STUNAddress(ipv4: 10, 0, 0, 1, port: 1)) == .notGlobal)
    let lab = RelayLab { $0.peerPolicy = policy }
    let session = RawSession(lab, RelayLab.tuple(1))
    _ = session.allocate()
    #expect(session.send(.createPermission, [.xorPeerAddress(STUNAddress(ipv4: 127, 0, 0, 1, port: 50_000))])?.isSuccess == true)
    #expect(session.send(.channelBind, [.channelNumber(0x4000), .xorPeerAddress(STUNAddress(ipv4: 127, 0, 0, 1, port: 8080))])?.code == 403)
}

@Test func aPermissionForAnAllowedIPStillNeverReachesTheServersOwnPort() throws {
    let loopback = try #require(TURNPeerPolicy.Prefix(ip: [127, 0, 0, 0], length: 8))
    let lab = RelayLab { $0.peerPolicy = TURNPeerPolicy(allowed: [loopback], ownAddresses: [[127, 0, 0, 1]], servicePorts: [8080]) }
    let alice = RelayLab.tuple(1)
    let client = lab.addClient(alice)
    let other = STUNAddress(ipv4: 127, 0, 0, 1, port: 50_000)
    client.createPermission(for: other, now: lab.now)
    lab.pump()
    // The permission is per IP, but the server's HTTP port stays out of reach.
    client.send([1, 2, 3], to: other.with(port: 8080), now: lab.now)
    client.send([4, 5, 6], to: other, now: lab.now)
    lab.pump()
    #expect(lab.outside.map(\.peer) == [other])
}

@Test func cidrPrefixesMatchOnlyTheirBits() throws {
    let prefix = try #require(TURNPeerPolicy.Prefix(ip: [198, 18, 0, 0], length: 15))
    #expect(prefix.contains([198, 19, 255, 255]))
    #expect(!prefix.contains([198, 20, 0, 0]))
    #expect(!prefix.contains([UInt8](repeating: 0, count: 16)))
    #expect(TURNPeerPolicy.Prefix(ip: [1, 2, 3, 4], length: 33) == nil)
    #expect(TURNPeerPolicy.Prefix(ip: [1, 2, 3], length: 8) == nil)
}

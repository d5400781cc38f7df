import ICE
import STUN
import Testing
import TestSupport

/// IPv6 on the shared emulator, as `Tools/natlab`'s ipv6 scenarios have it
/// on real kernels: global addresses are not NATed, so two hosts whose IPv4
/// sits behind symmetric NATs still meet directly over IPv6; link-local
/// addresses reach only their own link and never pair with global ones.
struct IPv6PathTests {
    static func ipv6(_ first: UInt8, _ second: UInt8, host: UInt8) -> STUNAddress {
        STUNAddress(ip: [first, second, 0x0D, 0xB8, 0, host, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2], port: 6000)!
    }
    static func global(_ host: UInt8) -> STUNAddress { ipv6(0x20, 0x01, host: host) }
    static func linkLocal(_ host: UInt8) -> STUNAddress {
        STUNAddress(ip: [0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 0, 0, host], port: 6001)!
    }

    /// Datagrams sent from a link-local base to a global address or back.
    static func acrossScopes(_ harness: Harness) -> Int {
        let isLinkLocal = { (a: STUNAddress) in a.family == .ipv6 && a.ip[0] == 0xFE && a.ip[1] & 0xC0 == 0x80 }
        return harness.sent.filter { isLinkLocal($0.transmit.source) != isLinkLocal($0.transmit.destination) }.count
    }

    @Test func dualStackPeersBehindSymmetricNATsConnectDirectlyOverIPv6() {
        for seed in UInt64(1)...5 {
            let harness = Harness(seed: seed)
            let a = harness.addPeer("A", role: .controlling, nat: .symmetric, extraInterfaces: [Self.global(1), Self.linkLocal(1)])
            let b = harness.addPeer("B", role: .controlled, nat: .symmetric, extraInterfaces: [Self.global(2), Self.linkLocal(2)])
            harness.network.addIPv6(Self.global(1), of: a)
            harness.network.addIPv6(Self.global(2), of: b)
            harness.exchangeCredentials()
            harness.runUntilSettled()
            for (peer, remote) in [(a, Self.global(2)), (b, Self.global(1))] {
                let pair = peer.agent.selectedPair
                #expect(peer.agent.state.isConnected, "seed \(seed) \(peer.name): \(peer.agent.state)")
                #expect(pair?.local.type == .host && pair?.remote.address == remote, "seed \(seed) \(peer.name): \(String(describing: pair))")
            }
            #expect(Self.acrossScopes(harness) == 0, "seed \(seed): a link-local base talked to a global address")
        }
    }

    @Test func anIPv6OnlyPeerMeetsADualStackPeerBehindANATOverIPv6() {
        let harness = Harness(seed: 7)
        let a = harness.addPeer("A", role: .controlling, nat: .none, hostIP: Self.global(1).ip, stun: false, extraInterfaces: [Self.linkLocal(1)])
        let b = harness.addPeer("B", role: .controlled, nat: .portRestricted, extraInterfaces: [Self.global(2), Self.linkLocal(2)])
        harness.network.addIPv6(Self.global(2), of: b)
        harness.exchangeCredentials()
        harness.runUntilSettled()
        #expect(a.agent.state.isConnected && b.agent.state.isConnected, "\(a.agent.state) / \(b.agent.state)")
        #expect(a.agent.selectedPair?.remote.address == Self.global(2), "\(String(describing: a.agent.selectedPair))")
        #expect(b.agent.selectedPair?.localBase == Self.global(2), "\(String(describing: b.agent.selectedPair))")
    }
}

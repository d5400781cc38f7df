@testable import ICE
import STUN
import Testing
import TestSupport

struct PriorityTests {
    @Test func candidatePriorityFollowsRFC8445Formula() {
        #expect(ICEPriority.candidate(type: .host, localPreference: 65535) == 2_130_706_431)
        #expect(ICEPriority.candidate(type: .srflx, localPreference: 65535) == 1_694_498_815)
        #expect(ICEPriority.candidate(type: .relay, localPreference: 0, component: 2) == 254)
        #expect(ICEPriority.candidate(type: .prflx, localPreference: 0) == 110 << 24 | 255)
    }

    @Test func pairPriorityFollowsRFC8445Formula() {
        let g: UInt32 = 2_130_706_431, d: UInt32 = 1_694_498_815
        #expect(ICEPriority.pair(controlling: g, controlled: d) == UInt64(d) << 32 + 2 * UInt64(g) + 1)
        #expect(ICEPriority.pair(controlling: d, controlled: g) == UInt64(d) << 32 + 2 * UInt64(g))
        // Both agents compute the same value for the same pair.
        #expect(ICEPriority.pair(controlling: 5, controlled: 5) == 5 << 32 + 10)
    }

    @Test func ipv6IsPreferredAndInterfacesAreDistinct() {
        let v4 = STUNAddress(ipv4: 10, 0, 0, 1, port: 1)
        let v6 = STUNAddress(ipv6: (0x2001, 0xdb8, 0, 0, 0, 0, 0, 1), port: 1)
        let linkLocal = STUNAddress(ipv6: (0xfe80, 0, 0, 0, 0, 0, 0, 1), port: 1)
        let p6 = ICEPriority.localPreference(for: v6, interfaceIndex: 1)
        let p4 = ICEPriority.localPreference(for: v4, interfaceIndex: 0)
        let pll = ICEPriority.localPreference(for: linkLocal, interfaceIndex: 0)
        #expect(p6 > p4 && p4 > pll)
        #expect(ICEPriority.localPreference(for: v4, interfaceIndex: 0) != ICEPriority.localPreference(for: v4, interfaceIndex: 1))
    }

    @Test func foundationsGroupByTypeBaseAndServer() {
        let server = STUNAddress(ipv4: 198, 51, 100, 1, port: 3478)
        let a = ICEPriority.foundation(type: .host, baseIP: [10, 0, 0, 1])
        #expect(a == ICEPriority.foundation(type: .host, baseIP: [10, 0, 0, 1]))
        #expect(a != ICEPriority.foundation(type: .host, baseIP: [10, 0, 0, 2]))
        #expect(a != ICEPriority.foundation(type: .srflx, baseIP: [10, 0, 0, 1], server: server))
        #expect(a.allSatisfy { $0.isNumber })
    }

    @Test func demuxFollowsRFC7983() {
        #expect(Demux.classify(0) == .stun && Demux.classify(3) == .stun)
        #expect(Demux.classify(20) == .dtls && Demux.classify(63) == .dtls)
        #expect(Demux.classify(64) == .turnChannel && Demux.classify(79) == .turnChannel)
        #expect(Demux.classify(128) == .rtp && Demux.classify(4) == .unknown)
        #expect(Demux.classify(datagram: []) == .unknown)
    }

    @Test func randomCredentialsAreWellFormed() {
        var rng = SeededRandom(seed: 3)
        let credentials = ICECredentials.random(using: &rng)
        #expect(credentials.isWellFormed)
        #expect(credentials.ufrag.count >= 4 && credentials.pwd.count >= 22)
        #expect(credentials != ICECredentials.random(using: &rng))
    }
}

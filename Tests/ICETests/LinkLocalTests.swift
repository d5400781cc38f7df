import ICE
import STUN
import Testing
import TestSupport

/// Link-local IPv6 host candidates (the `--lan` chat offers them): paired
/// only with link-local remote candidates, never sent to a STUN server.
struct LinkLocalTests {
    static let linkLocal = STUNAddress(ip: [0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 0, 0, 0x02], port: 5000)!
    static let global = STUNAddress(ip: [0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02], port: 5001)!
    static let stunServer = STUNAddress(ip: [0x20, 0x01, 0x0D, 0xB8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01], port: 3478)!

    func makeAgent() -> ICEAgent {
        var rng = SeededRandom(seed: 9)
        return ICEAgent(role: .controlling, localCredentials: .random(using: &rng), tieBreaker: 1, config: ICEConfig(),
                        now: .zero, random: SeededRandom(seed: 10))
    }

    /// Every Binding request sent until `limit`, as (source, destination).
    func requests(_ agent: ICEAgent, until limit: Duration) -> [(STUNAddress, STUNAddress)] {
        var sent: [(STUNAddress, STUNAddress)] = []
        var now = Duration.zero
        while let deadline = agent.pollTimeout(), deadline <= limit {
            now = max(now, deadline)
            agent.handleTimeout(now: now)
            while let transmit = agent.pollTransmit() {
                if (try? STUNMessage.decode(transmit.bytes))?.type == .bindingRequest { sent.append((transmit.source, transmit.destination)) }
            }
            while agent.pollEvent() != nil {}
        }
        return sent
    }

    @Test func aLinkLocalBaseIsPairedOnlyWithLinkLocalCandidatesAndAsksNoServer() throws {
        let agent = makeAgent()
        agent.addLocalInterface(Self.linkLocal)
        agent.addLocalInterface(Self.global)
        agent.addSTUNServer(Self.stunServer)
        agent.setRemoteCredentials(ufrag: "abcd", pwd: "0123456789012345678901")
        agent.addRemoteCandidate(try #require(ICECandidate(sdpAttribute: "candidate:1 1 udp 2122260223 fe80::3 6000 typ host")))
        agent.addRemoteCandidate(try #require(ICECandidate(sdpAttribute: "candidate:2 1 udp 2122194687 2001:db8::3 6001 typ host")))
        let sent = requests(agent, until: .seconds(2))
        let toServer = sent.filter { $0.1 == Self.stunServer }
        #expect(!toServer.isEmpty && toServer.allSatisfy { $0.0 == Self.global })
        let checks = sent.filter { $0.1 != Self.stunServer }
        let remoteLinkLocal = STUNAddress(ip: [0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [3], port: 6000)!
        #expect(checks.contains { $0.0 == Self.linkLocal && $0.1 == remoteLinkLocal })
        #expect(checks.contains { $0.0 == Self.global && $0.1.port == 6001 })
        #expect(!checks.contains { ($0.0 == Self.linkLocal) != ($0.1 == remoteLinkLocal) }, "\(checks)")
    }

    @Test func linkLocalRanksBelowEveryRoutableHostCandidate() throws {
        let agent = makeAgent()
        let ipv4 = STUNAddress(ipv4: 10, 0, 0, 2, port: 5002)
        agent.addLocalInterface(Self.linkLocal)
        agent.addLocalInterface(ipv4)
        agent.addLocalInterface(Self.global)
        var priorities: [STUNAddress: UInt32] = [:]
        while let event = agent.pollEvent() {
            if case .localCandidate(let candidate) = event, let address = candidate.address { priorities[address] = candidate.priority }
        }
        let linkLocal = try #require(priorities[Self.linkLocal])
        #expect(try linkLocal < #require(priorities[ipv4]) && linkLocal < #require(priorities[Self.global]))
    }
}

import ICE
import STUN
import Testing
import TestSupport

/// A port mapping the router granted (PCP, NAT-PMP, UPnP) offered as a
/// candidate: a symmetric NAT whose router maps the port is reached
/// directly by a peer behind a port-restricted cone, a pair plain ICE can
/// only relay (NATMatrixTests).
struct MappedCandidateTests {
    static let mappedPort: UInt16 = 61000

    /// A behind a symmetric NAT, B behind a port-restricted cone; with
    /// `mapped`, A's router maps A's ICE port and A offers it.
    func harness(mapped: Bool, seed: UInt64) -> Harness {
        let harness = Harness(seed: seed)
        harness.addPeer("A", role: .controlling, nat: .symmetric)
        harness.addPeer("B", role: .controlled, nat: .portRestricted)
        if mapped, let base = harness.a.addresses.first, let external = harness.a.realm.nat?.mapPort(Self.mappedPort, to: base) {
            harness.a.agent.addMappedCandidate(external, base: base)
        }
        harness.exchangeCredentials()
        return harness
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func aSymmetricNATWithAMappedPortConnectsDirectlyToAPortRestrictedCone(_ seed: UInt64) {
        let harness = harness(mapped: true, seed: seed)
        harness.runUntilSettled()
        #expect(harness.a.agent.state.isConnected, "A is \(harness.a.agent.state) \(harness.a.failureReason ?? "")")
        #expect(harness.b.agent.state.isConnected, "B is \(harness.b.agent.state) \(harness.b.failureReason ?? "")")
        // B reaches A through the mapping: A's mapped address is B's remote end.
        #expect(harness.b.agent.selectedPair?.remoteAddress.port == Self.mappedPort)
    }

    @Test func withoutTheMappingThePairHasNoDirectPath() {
        let harness = harness(mapped: false, seed: 1)
        harness.runUntilBothDone()
        #expect(!harness.a.agent.state.isConnected)
    }

    @Test func theMappedCandidateIsTrickledAsSrflxOfItsBaseAndOfferedAgainAfterARestart() throws {
        var rng = SeededRandom(seed: 31)
        let base = STUNAddress(ipv4: 10, 0, 0, 2, port: 5000), external = STUNAddress(ipv4: 203, 0, 113, 9, port: 61000)
        let agent = ICEAgent(role: .controlling, localCredentials: .random(using: &rng), tieBreaker: 1, now: .zero,
                             random: SeededRandom(seed: 32))
        agent.addLocalInterface(base)
        agent.addMappedCandidate(external, base: base)
        func trickled() -> [ICECandidate] {
            var candidates: [ICECandidate] = []
            while let event = agent.pollEvent() { if case .localCandidate(let candidate) = event { candidates.append(candidate) } }
            return candidates.filter { $0.type == .srflx }
        }
        let first = try #require(trickled().first)
        #expect(first.address == external)
        #expect(first.relatedAddress == "10.0.0.2" && first.relatedPort == 5000)
        agent.restart(newCredentials: .random(using: &rng))
        #expect(trickled().map(\.address) == [external], "offered again with the new credentials")
        agent.removeMappedCandidate(external)
        agent.restart(newCredentials: .random(using: &rng))
        #expect(trickled().isEmpty, "a lost mapping is not offered again")
    }
}

import ICE
import STUN
import Testing
import TestSupport

/// Bases removed and announced again under a live agent.
struct InterfaceChangeTests {
    static let first = STUNAddress(ipv4: 10, 0, 0, 2, port: 5000)
    static let second = STUNAddress(ipv4: 10, 0, 1, 2, port: 5001)

    func checkingAgent() -> ICEAgent {
        var rng = SeededRandom(seed: 21)
        let agent = ICEAgent(role: .controlling, localCredentials: .random(using: &rng), tieBreaker: 1, now: .zero,
                             random: SeededRandom(seed: 22))
        agent.addLocalInterface(Self.first)
        agent.addLocalInterface(Self.second)
        agent.setRemoteCredentials(ufrag: "peer", pwd: "peerpasswordpeerpassword")
        let remote = ICECandidate(sdpAttribute: "candidate:1 1 udp 2122260223 192.0.2.9 9000 typ host")!
        agent.addRemoteCandidate(remote)
        while agent.pollEvent() != nil {}
        return agent
    }

    @Test func aRemovedBaseSendsNothingMore() {
        let agent = checkingAgent()
        agent.removeLocalInterface(Self.first)
        var sources: Set<STUNAddress> = []
        var now = Duration.zero
        while let deadline = agent.pollTimeout(), deadline < .seconds(3) {
            now = max(now, deadline, now + .milliseconds(1))
            agent.handleTimeout(now: now)
            while let transmit = agent.pollTransmit() { sources.insert(transmit.source) }
        }
        #expect(sources == [Self.second])
    }

    @Test func aDatagramToARemovedBaseIsIgnored() {
        let agent = checkingAgent()
        agent.removeLocalInterface(Self.first)
        var rng = SeededRandom(seed: 23)
        let request = STUNMessage(type: .bindingRequest, transactionID: .random(using: &rng))
        agent.handleInput(request.encoded(fingerprint: true), from: STUNAddress(ipv4: 192, 0, 2, 9, port: 9000),
                          to: Self.first, now: .milliseconds(1))
        while let transmit = agent.pollTransmit() { #expect(transmit.source != Self.first) }
    }

    @Test func hostCandidatesAreAnnouncedAgainOnlyForRemainingBases() {
        let agent = checkingAgent()
        agent.removeLocalInterface(Self.first)
        agent.announceCandidates()
        var announced: [STUNAddress?] = []
        while let event = agent.pollEvent() {
            if case .localCandidate(let candidate) = event { announced.append(candidate.address) }
        }
        #expect(announced == [Self.second])
    }

    @Test func removingAnUnknownBaseChangesNothing() {
        let agent = checkingAgent()
        agent.removeLocalInterface(STUNAddress(ipv4: 10, 9, 9, 9, port: 1))
        agent.announceCandidates()
        var count = 0
        while let event = agent.pollEvent() { if case .localCandidate = event { count += 1 } }
        #expect(count == 2)
    }
}

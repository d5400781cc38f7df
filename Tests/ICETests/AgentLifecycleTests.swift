import ICE
import STUN
import Testing
import TestSupport

/// Gathering and failure verdicts of a single agent.
struct AgentLifecycleTests {
    static let base = STUNAddress(ipv4: 10, 0, 0, 2, port: 5000)

    func makeAgent(config: ICEConfig = ICEConfig()) -> ICEAgent {
        var rng = SeededRandom(seed: 9)
        return ICEAgent(role: .controlling, localCredentials: .random(using: &rng), tieBreaker: 1, config: config,
                        now: .zero, random: SeededRandom(seed: 10))
    }

    func drainEvents(_ agent: ICEAgent) -> [ICEEvent] {
        var events: [ICEEvent] = []
        while let event = agent.pollEvent() { events.append(event) }
        return events
    }

    @Test func hostCandidateIsTrickledAndGatheringCompletesWithoutServers() {
        let agent = makeAgent()
        agent.addLocalInterface(Self.base)
        guard case .localCandidate(let host)? = agent.pollEvent() else {
            Issue.record("no host candidate")
            return
        }
        #expect(host.type == .host && host.address == Self.base && host.priority > 2_100_000_000)
        #expect(host.sdpAttribute.hasPrefix("candidate:"))
        #expect(agent.pollTimeout() == .zero)
        agent.handleTimeout(now: .zero)
        #expect(drainEvents(agent) == [.gatheringComplete])
    }

    @Test func unansweredSTUNServerTimesOutAndGatheringCompletes() {
        let agent = makeAgent()
        agent.addLocalInterface(Self.base)
        agent.addSTUNServer(STUNAddress(ipv4: 198, 51, 100, 1, port: 3478))
        _ = drainEvents(agent)
        var now = Duration.zero
        var sends = 0
        while let deadline = agent.pollTimeout(), deadline < .seconds(60) {
            now = max(now, deadline)
            agent.handleTimeout(now: now)
            while agent.pollTransmit() != nil { sends += 1 }
            if drainEvents(agent).contains(.gatheringComplete) { break }
        }
        #expect(sends == 4)
        #expect(now == .milliseconds(5500))
    }

    @Test func srflxEqualToTheHostIsNotReported() throws {
        let agent = makeAgent()
        agent.addLocalInterface(Self.base)
        agent.addSTUNServer(STUNAddress(ipv4: 198, 51, 100, 1, port: 3478))
        agent.handleTimeout(now: .zero)
        let request = try #require(agent.pollTransmit())
        let id = try STUNMessage.decode(request.bytes).transactionID
        let response = STUNMessage(type: .bindingSuccess, transactionID: id, attributes: [.xorMappedAddress(Self.base)])
        agent.handleInput(response.encoded(fingerprint: true), from: request.destination, to: Self.base, now: .milliseconds(20))
        let events = drainEvents(agent)
        #expect(!events.contains { if case .localCandidate(let c) = $0 { c.type == .srflx } else { false } })
        #expect(events.contains(.gatheringComplete))
    }

    @Test func noRemoteCandidatesFailsWithAReason() {
        let agent = makeAgent()
        agent.addLocalInterface(Self.base)
        agent.setRemoteCredentials(ufrag: "abcd", pwd: "0123456789012345678901")
        agent.remoteEndOfCandidates()
        agent.handleTimeout(now: .zero)
        #expect(agent.state == .failed(.noRemoteCandidates))
        #expect(agent.pollTimeout() == nil)
    }

    @Test func mdnsOnlyPeerFailsWithAReasonAndNoChecks() throws {
        let agent = makeAgent()
        agent.addLocalInterface(Self.base)
        agent.setRemoteCredentials(ufrag: "abcd", pwd: "0123456789012345678901")
        let mdns = try #require(ICECandidate(sdpAttribute:
            "candidate:3098175849 1 udp 2113937151 4e5e7e6b-7d1c-4b1c-9d9b-1f0b5c0a1e2f.local 58321 typ host generation 0 ufrag abcd"))
        agent.addRemoteCandidate(mdns)
        agent.remoteEndOfCandidates()
        agent.handleTimeout(now: .zero)
        while let transmit = agent.pollTransmit() {
            #expect((try? STUNMessage.decode(transmit.bytes))?.type != .bindingRequest)
        }
        #expect(agent.state == .failed(.onlyMDNSCandidates))
    }

    @Test func silentPeerFailsAfterTheConnectTimeout() throws {
        let agent = makeAgent()
        agent.addLocalInterface(Self.base)
        agent.setRemoteCredentials(ufrag: "abcd", pwd: "0123456789012345678901")
        agent.addRemoteCandidate(try #require(ICECandidate(sdpAttribute: "candidate:1 1 udp 2130706431 10.0.0.9 5000 typ host")))
        var now = Duration.zero
        while let deadline = agent.pollTimeout() {
            now = max(now, deadline)
            agent.handleTimeout(now: now)
            while agent.pollTransmit() != nil {}
        }
        guard case .failed(.timedOut(let seconds, _)) = agent.state else {
            Issue.record("state \(agent.state)")
            return
        }
        #expect(now == .seconds(30))
        #expect(seconds == 30)
    }

    @Test func tcpCandidatesAreNotChecked() throws {
        let agent = makeAgent()
        agent.addLocalInterface(Self.base)
        agent.setRemoteCredentials(ufrag: "abcd", pwd: "0123456789012345678901")
        agent.addRemoteCandidate(try #require(ICECandidate(sdpAttribute: "candidate:2 1 TCP 2105524479 10.0.0.9 9 typ host tcptype active")))
        agent.remoteEndOfCandidates()
        agent.handleTimeout(now: .zero)
        #expect(agent.state == .failed(.onlyTCPCandidates))
    }

    @Test func candidatesOfAnEarlierGenerationAreIgnored() throws {
        let agent = makeAgent()
        agent.addLocalInterface(Self.base)
        agent.setRemoteCredentials(ufrag: "new1", pwd: "0123456789012345678901")
        agent.addRemoteCandidate(try #require(ICECandidate(sdpAttribute: "candidate:1 1 udp 2130706431 10.0.0.9 5000 typ host ufrag old1")))
        agent.handleTimeout(now: .zero)
        #expect(agent.state == .new)
    }
}

/// Every way ICE gives up reads as one sentence, written in one place.
@Test func everyICEFailureReadsAsOneSentence() {
    let server = STUNAddress(ipv4: 192, 0, 2, 1, port: 3478)
    let relays = RelayOutcome.failed([.noLocalAddress(server: server), .noAnswer(server: server, seconds: 5),
                                      .turn(.rejected(method: .allocate, code: 401, reason: ""))])
    let failures: [ICEFailure] = [
        .noLocalAddress, .noRelayAllocated(.notConfigured), .noRemoteCredentials, .noRemoteCandidates,
        .onlyMDNSCandidates, .onlyTCPCandidates, .noUsablePairs(remoteCandidates: 3),
        .udpBlocked(pairs: 2, relays: .noneSucceeded), .allPairsFailed(pairs: 4, relays: relays),
        .neverNominated(valid: 1, pairs: 2), .noAnswer(failed: 1, pairs: 3, relays: relays),
        .timedOut(seconds: 30, cause: .noRemoteCandidates), .consentExpired(seconds: 30),
    ]
    for failure in failures {
        let text = failure.description
        #expect(!text.isEmpty && !text.hasSuffix(".") && text.first?.isUppercase == false, "\(text)")
    }
    #expect(ICEFailure.timedOut(seconds: 30, cause: .noRemoteCandidates).description == "no connection after 30 s: no remote candidates received")
    #expect(ICEFailure.allPairsFailed(pairs: 4, relays: relays).description.hasSuffix(
        "(no local IPv4 address to reach TURN server 192.0.2.1:3478 from; TURN server 192.0.2.1:3478 did not answer within 5 s; the TURN server rejected the credentials (401))"))
}

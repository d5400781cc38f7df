import ICE
import STUN
import Testing
import TestSupport

/// Birthday-paradox port probing on the simulated network: a symmetric NAT
/// that picks random ports (like Linux `--random-fully`) against a
/// port-restricted cone, which plain ICE cannot connect.
@Suite(.computeThread) struct PortProbingTests {
    static func harness(
        _ a: NATKind, _ b: NATKind, seed: UInt64, probing: PortProbingConfig = PortProbingConfig(),
        turn: Bool = false
    ) -> Harness {
        let harness = Harness(seed: seed)
        harness.randomNATPorts = true
        harness.config.portProbing = probing
        harness.addPeer("A", role: .controlling, nat: a, turn: turn ? [.udp] : [])
        harness.addPeer("B", role: .controlled, nat: b, turn: turn ? [.udp] : [])
        harness.exchangeCredentials()
        return harness
    }

    static func offered(_ peer: SimPeer) -> [ICECandidate] {
        peer.events.compactMap { if case .localCandidate(let c) = $0 { c } else { nil } }
    }

    @Test func eachSideLearnsItsMappingAndTellsThePeerInASrflxAttribute() {
        let harness = Self.harness(.symmetric, .portRestricted, seed: 1)
        harness.run(for: .seconds(1)) { false }
        let hard = Self.offered(harness.a).filter { $0.type == .srflx }
        let easy = Self.offered(harness.b).filter { $0.type == .srflx }
        #expect(hard.count == 2 && Set(hard.map(\.port)).count == 2 && Set(hard.map(\.connectionAddress)).count == 1)
        #expect(hard.allSatisfy { $0.extensionValue("nat") == "hard" }, "\(hard)")
        #expect(easy.count == 1 && easy.first?.extensionValue("nat") == "easy", "\(easy)")
        #expect(harness.a.agent.natMapping(of: STUNAddress(ipv4: 10, 1, 0, 2, port: 5000)) == .hard)
        #expect(harness.b.agent.natMapping(of: STUNAddress(ipv4: 10, 2, 0, 2, port: 5000)) == .easy)
        // The attribute is an RFC 8839 extension: it survives SDP as written.
        let line = hard[0].sdpAttribute
        #expect(line.hasSuffix(" nat hard"), "\(line)")
        #expect(ICECandidate(sdpAttribute: line) == hard[0])
    }

    @Test func withoutTheFlagNothingIsTaggedOrHeld() {
        let harness = Harness.pair(.symmetric, .portRestricted, seed: 2)
        harness.run(for: .seconds(1)) { false }
        let srflx = Self.offered(harness.a).filter { $0.type == .srflx }
        #expect(srflx.count == 1 && srflx[0].extensionValue("nat") == nil)
    }

    /// Both orders and both roles, several seeds: the direct path is found
    /// and chosen although a relay is there too.
    @Test(arguments: [(NATKind.symmetric, NATKind.portRestricted), (.portRestricted, .symmetric)], 1...6)
    func hardAndEasyConnectDirectlyBeforeTheRelay(_ kinds: (NATKind, NATKind), seed: Int) {
        let harness = Self.harness(kinds.0, kinds.1, seed: UInt64(seed) * 7, turn: true)
        harness.runUntilSettled(limit: .seconds(20))
        #expect(!harness.busyLoop)
        for peer in harness.peers {
            #expect(peer.agent.state.isConnected, "\(kinds): \(peer.name) is \(peer.agent.state) \(peer.failureReason ?? "")")
            #expect(peer.agent.selectedPair?.path != "relay", "\(kinds): \(peer.name): \(String(describing: peer.agent.selectedPair))")
        }
        #expect(harness.network.now < .seconds(4), "connected after \(harness.network.now)")
        // The data path works both ways.
        #expect(harness.a.agent.send([23, 1]) && harness.b.agent.send([23, 2]))
        harness.run(for: .seconds(1)) { !harness.a.receivedData.isEmpty && !harness.b.receivedData.isEmpty }
        #expect(harness.b.receivedData == [[23, 1]] && harness.a.receivedData == [[23, 2]])
    }

    @Test func theHardSideReleasesEveryProbeSocketButTheSelectedOne() {
        let harness = Self.harness(.symmetric, .portRestricted, seed: 3)
        harness.runUntilSettled(limit: .seconds(20))
        harness.run(for: .milliseconds(100)) { false }
        #expect(harness.a.agent.selectedPair?.localBase.port ?? 0 >= 20000, "the path runs on a probe socket")
        #expect(harness.a.releasedProbeBases == 255)
        #expect(harness.b.releasedProbeBases == 0)
    }

    @Test func easyProbesArePacedAtOnePerIntervalAndStopOnceAPairIsSelected() {
        let harness = Self.harness(.portRestricted, .symmetric, seed: 4)
        harness.runUntilSettled(limit: .seconds(20))
        let selectedAt = harness.network.now
        harness.run(for: .seconds(2)) { false }
        let hardIP: [UInt8] = [203, 0, 113, 2]
        let probes = harness.sent.filter { $0.from == "A" && $0.transmit.destination.ip == hardIP }.map(\.at)
        #expect(probes.count > 10)
        #expect(probes.allSatisfy { $0 <= selectedAt }, "no probe after selection")
        // Never more than one per millisecond on average over any 50 ms.
        for (index, start) in probes.enumerated() {
            let window = probes[index...].prefix { $0 < start + .milliseconds(50) }.count
            #expect(window <= 51 + PortProbingConfig().maxBurst, "\(window) probes in 50 ms from \(start)")
        }
    }

    @Test func aHardSideThatNeverAnswersFallsBackToTheRelayAfterThePatience() {
        var silent = PortProbingConfig()
        silent.hardSideSockets = 0
        let harness = Harness(seed: 5)
        harness.randomNATPorts = true
        harness.config.portProbing = PortProbingConfig()
        harness.addPeer("A", role: .controlling, nat: .portRestricted, turn: [.udp])
        harness.config.portProbing = silent
        harness.addPeer("B", role: .controlled, nat: .symmetric, turn: [.udp])
        harness.exchangeCredentials()
        harness.runUntilSettled(limit: .seconds(20))
        #expect(harness.a.agent.selectedPair?.path == "relay")
        #expect(harness.network.now > .seconds(5) && harness.network.now < .seconds(7), "\(harness.network.now)")
        let probes = harness.sent.filter { $0.from == "A" && $0.transmit.destination.ip == [203, 0, 113, 2] }
        #expect(probes.count >= PortProbingConfig().easySideProbes && probes.count < PortProbingConfig().easySideProbes + 20)
        #expect(Set(probes.map(\.transmit.destination.port)).count >= PortProbingConfig().easySideProbes, "no port twice")
    }

    @Test func twoHardSidesDoNotProbe() {
        let harness = Self.harness(.symmetric, .symmetric, seed: 6)
        harness.runUntilBothDone(limit: .seconds(40))
        #expect(harness.a.agent.state.isFailed && harness.b.agent.state.isFailed)
        #expect(harness.sent.count < 200, "\(harness.sent.count) datagrams")
    }
}

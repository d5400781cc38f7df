import ICE
import STUN
import Testing
import TestSupport

/// Whole-session behaviours on the simulated network.
@Suite(.computeThread) struct ScenarioTests {
    @Test func peersOnTheSameLANSelectTheHostPair() {
        let harness = Harness(seed: 11)
        let office = harness.network.addRealm("office", nat: NAT(kind: .portRestricted, publicIP: [203, 0, 113, 50]))
        harness.addPeer("A", role: .controlling, realm: office)
        harness.addPeer("B", role: .controlled, realm: office)
        harness.exchangeCredentials()
        harness.runUntilSettled()
        for peer in harness.peers {
            let pair = peer.agent.selectedPair
            #expect(peer.agent.state.isConnected)
            #expect(pair?.local.type == .host && pair?.remote.type == .host, "\(peer.name): \(String(describing: pair))")
            #expect(pair?.path == "host")
        }
    }

    @Test func lossyDelayedPathStillConnects() {
        let conditions = LinkConditions(delay: .milliseconds(50), jitter: .milliseconds(30), loss: 0.1, duplication: 0.05)
        let kinds: [(NATKind, NATKind)] = [(.portRestricted, .portRestricted), (.symmetric, .fullCone), (.none, .symmetric)]
        for seed in UInt64(1)...40 {
            let (a, b) = kinds[Int(seed) % kinds.count]
            let harness = Harness.pair(a, b, seed: seed, conditions: conditions)
            harness.runUntilSettled()
            #expect(harness.peers.allSatisfy { $0.agent.state.isConnected },
                    "seed \(seed) \(a)×\(b): \(harness.a.agent.state) / \(harness.b.agent.state)")
            #expect(harness.network.now < .seconds(15))
        }
    }

    @Test func bothControllingResolvesTheRoleConflict() {
        for seed in UInt64(1)...10 {
            let harness = Harness(seed: seed)
            harness.addPeer("A", role: .controlling, nat: .fullCone)
            harness.addPeer("B", role: .controlling, nat: .portRestricted)
            harness.exchangeCredentials()
            harness.runUntilSettled()
            #expect(harness.peers.allSatisfy { $0.agent.state.isConnected }, "seed \(seed)")
            #expect(Set(harness.peers.map(\.agent.role)) == [.controlling, .controlled])
            #expect(harness.peers.contains { $0.events.contains(.roleChanged(.controlled)) })
            // The winner has the larger tie-breaker (RFC 8445 §7.3.1.1).
            let winner = harness.peers.first { $0.agent.role == .controlling }
            #expect(winner?.agent.tieBreaker == harness.peers.map(\.agent.tieBreaker).max())
        }
    }

    @Test func bothControlledResolvesTheRoleConflict() {
        let harness = Harness(seed: 5)
        harness.addPeer("A", role: .controlled)
        harness.addPeer("B", role: .controlled, nat: .fullCone)
        harness.exchangeCredentials()
        harness.runUntilSettled()
        #expect(harness.peers.allSatisfy { $0.agent.state.isConnected })
        #expect(Set(harness.peers.map(\.agent.role)) == [.controlling, .controlled])
    }

    @Test func unsignalledPeerIsDiscoveredAsPeerReflexive() {
        let harness = Harness(seed: 21)
        harness.signalCandidates["B"] = false
        harness.addPeer("A", role: .controlling)
        harness.addPeer("B", role: .controlled, nat: .portRestricted)
        harness.exchangeCredentials()
        harness.runUntilSettled()
        #expect(harness.a.agent.state.isConnected && harness.b.agent.state.isConnected)
        #expect(harness.a.agent.selectedPair?.remote.type == .prflx)
        // B's srflx candidate arrives late: it is the same address, so the
        // session is unaffected.
        if let srflx = harness.b.events.compactMap({ event -> ICECandidate? in
            if case .localCandidate(let c) = event, c.type == .srflx { return c }
            return nil
        }).first {
            harness.a.agent.addRemoteCandidate(srflx)
        }
        harness.run(for: .seconds(2)) { false }
        #expect(harness.a.agent.state.isConnected)
    }

    @Test func candidatesTrickledBeforeCredentialsAreBuffered() {
        let harness = Harness(seed: 31)
        harness.credentialsDelay = .seconds(1)
        harness.addPeer("A", role: .controlling, nat: .fullCone)
        harness.addPeer("B", role: .controlled, nat: .addressRestricted)
        harness.exchangeCredentials()
        harness.run(for: .milliseconds(900)) { false }
        #expect(harness.peers.allSatisfy { $0.agent.state == .new })
        harness.runUntilSettled()
        #expect(harness.peers.allSatisfy { $0.agent.state.isConnected })
        #expect(harness.network.now < .seconds(2))
    }

    @Test func consentLossIsDetectedAfterThePathIsCut() {
        let harness = Harness.pair(.none, .fullCone, seed: 41)
        harness.runUntilSettled()
        #expect(harness.a.agent.state.isConnected)
        harness.run(for: .seconds(20)) { false }
        #expect(harness.a.agent.state.isConnected, "consent keeps a live path up")
        #expect(!harness.a.events.contains(.consentLost))
        let cutAt = harness.network.now
        harness.network.severed.insert([203, 0, 113, 2])
        harness.run(for: .seconds(60)) { harness.a.events.contains(.consentLost) }
        #expect(harness.a.events.contains(.consentLost))
        #expect(harness.a.states.contains(.disconnected))
        #expect(harness.a.failure == .consentExpired(seconds: 30), "\(harness.a.failureReason ?? "")")
        let elapsed = harness.network.now - cutAt
        #expect(elapsed >= .seconds(24) && elapsed <= .seconds(31), "lost after \(elapsed)")
        #expect(!harness.a.agent.send([0x17]))
    }

    @Test func disconnectedRecoversWhenThePathReturns() {
        let harness = Harness.pair(.none, .none, seed: 42)
        harness.runUntilSettled()
        harness.network.severed.insert([203, 0, 113, 20])
        harness.run(for: .seconds(30)) { harness.a.agent.state == .disconnected }
        #expect(harness.a.agent.state == .disconnected)
        harness.network.severed = []
        harness.run(for: .seconds(10)) { harness.a.agent.state.isConnected }
        #expect(harness.a.agent.state.isConnected)
    }

    /// The peer (a browser) still checks after every check of ours failed
    /// (the path was cut longer than our patience): once its authenticated
    /// checks come through, we check again and select a pair, instead of
    /// answering them for ever with none selected while the peer, its own
    /// checks answered, believes the path works.
    @Test func aFailedAgentChecksAgainWhenThePeersChecksComeThrough() {
        let harness = Harness(seed: 77, conditions: .internet)
        harness.config.connectTimeout = .seconds(600)
        harness.addPeer("A", role: .controlling)
        harness.config.connectTimeout = .seconds(4)
        harness.addPeer("B", role: .controlled)
        harness.network.severed.insert([203, 0, 113, 20])
        harness.exchangeCredentials()
        harness.run(for: .seconds(30)) { harness.b.agent.state.isFailed }
        #expect(harness.b.agent.state.isFailed)
        #expect(!harness.a.agent.state.isFailed, "the peer still checks")
        harness.network.severed = []
        harness.run(for: .seconds(60)) { harness.a.agent.state.isConnected && harness.b.agent.state.isConnected }
        #expect(harness.a.agent.state.isConnected, "\(harness.a.states)")
        #expect(harness.b.agent.state.isConnected, "\(harness.b.states)")
        #expect(harness.b.agent.send([0x17]), "a pair is selected")
    }

    @Test func iceRestartReconnects() {
        let harness = Harness.pair(.portRestricted, .fullCone, seed: 51)
        harness.runUntilSettled()
        #expect(harness.peers.allSatisfy { $0.agent.state.isConnected })
        var rng = SeededRandom(seed: 99)
        for peer in harness.peers {
            peer.agent.restart(newCredentials: ICECredentials.random(using: &rng))
            #expect(peer.agent.state == .new)
            // Data keeps flowing on the old pair meanwhile.
            #expect(peer.agent.send([0x17]))
        }
        harness.exchangeCredentials()
        harness.run(for: .seconds(30)) { harness.peers.allSatisfy { $0.agent.state.isConnected } }
        #expect(harness.peers.allSatisfy { $0.agent.state.isConnected })
        #expect(harness.peers.allSatisfy { $0.selectedPairs.count == 2 })
        let newHost = harness.a.events.compactMap { event -> ICECandidate? in
            if case .localCandidate(let c) = event { return c }
            return nil
        }.last
        #expect(newHost?.ufrag == harness.a.agent.localCredentials.ufrag)
        #expect(newHost?.generation == 1)
    }

    @Test func applicationDataReachesThePeerOnTheSelectedPair() {
        let harness = Harness.pair(.symmetric, .fullCone, seed: 61)
        harness.runUntilSettled()
        let dtlsRecord: [UInt8] = [22, 254, 253, 0, 0]
        #expect(harness.a.agent.send(dtlsRecord), "a pair is selected")
        harness.run(for: .seconds(1)) { !harness.b.receivedData.isEmpty }
        #expect(harness.b.receivedData == [dtlsRecord])
    }

    @Test func ipv6PeersConnect() {
        let harness = Harness(seed: 71)
        let v6a: [UInt8] = [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1]
        let v6b: [UInt8] = [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [2]
        harness.addPeer("A", role: .controlling, hostIP: v6a)
        harness.addPeer("B", role: .controlled, hostIP: v6b)
        harness.exchangeCredentials()
        harness.runUntilSettled()
        #expect(harness.peers.allSatisfy { $0.agent.state.isConnected })
        #expect(harness.a.agent.selectedPair?.remoteAddress.family == .ipv6)
    }

    @Test func selectedPairReportsPathAndRoundTrip() {
        let harness = Harness.pair(.portRestricted, .none, seed: 81, conditions: LinkConditions(delay: .milliseconds(25)))
        harness.runUntilSettled()
        let pair = harness.a.agent.selectedPair
        #expect(pair?.path == "host")
        #expect(pair?.local.summary == "srflx 203.0.113.1:40000")
        #expect(pair?.remote.summary == "host 203.0.113.20:5000")
        #expect(pair?.rttMilliseconds == 50)
    }

    /// 300 random NAT pairs, each connected exactly where a direct path
    /// exists; how long they took on this machine is printed, not judged.
    @Test func hundredsOfSeededRunsConnectExactlyWhereADirectPathExists() {
        let kinds = NATKind.allCases
        let clock = ContinuousClock()
        var rng = SeededRandom(seed: 2024)
        var outcomes = 0
        let elapsed = clock.measure {
            for seed in UInt64(1)...300 {
                let a = kinds[Int(rng.next() % UInt64(kinds.count))]
                let b = kinds[Int(rng.next() % UInt64(kinds.count))]
                let harness = Harness.pair(a, b, seed: seed)
                harness.runUntilBothDone()
                #expect(!harness.busyLoop)
                let expected = NATMatrix.directPathExists(a, b)
                #expect(harness.peers.allSatisfy { $0.agent.state.isConnected == expected },
                        "seed \(seed) \(a)×\(b)")
                outcomes += 1
            }
        }
        #expect(outcomes == 300)
        print("ICE: 300 seeded NAT-pair runs took \(elapsed)")
    }
}

/// The expected verdict of each NAT combination (RFC 4787 reasoning).
enum NATMatrix {
    static func directPathExists(_ a: NATKind, _ b: NATKind) -> Bool {
        if a == .udpBlocked || b == .udpBlocked { return false }
        func strict(_ k: NATKind) -> Bool { k == .portRestricted || k == .symmetric }
        if a == .symmetric && strict(b) || b == .symmetric && strict(a) { return false }
        return true
    }
}

/// Several local interfaces, one of them a dead end (a VPN with no route).
struct MultiInterfaceTests {
    @Test func aDeadInterfaceDoesNotStopTheLiveOne() {
        for seed in UInt64(1)...10 {
            let harness = Harness(seed: seed)
            let vpn = STUNAddress(ipv4: 172, 16, 9, 2, port: 5001)
            let second = STUNAddress(ipv4: 10, 1, 0, 2, port: 5002)
            harness.addPeer("A", role: .controlling, nat: .portRestricted, extraInterfaces: [vpn, second])
            harness.addPeer("B", role: .controlled, nat: .fullCone, extraInterfaces: [STUNAddress(ipv4: 10, 2, 0, 3, port: 5003)])
            harness.exchangeCredentials()
            harness.runUntilSettled()
            #expect(!harness.busyLoop, "seed \(seed)")
            #expect(harness.peers.allSatisfy { $0.agent.state.isConnected }, "seed \(seed): \(harness.a.agent.state)")
            harness.run(for: .seconds(20)) { harness.peers.allSatisfy { $0.agent.state == .completed } }
            #expect(harness.peers.allSatisfy { $0.agent.state == .completed }, "seed \(seed)")
        }
    }
}

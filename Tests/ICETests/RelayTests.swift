import ICE
import STUN
import Testing
import TURN
import TestSupport

/// Relayed candidates through a TURN server on the simulated internet: the
/// NAT pairs with no direct path now connect through the relay, the ones
/// with a direct path still pick it, and relay-only shows the peer nothing
/// but the relay.
struct RelayTests {
    @Test(arguments: NATMatrixTests.unconnectable.indices)
    func peersConnectThroughTheRelayWhenNoDirectPathExists(_ index: Int) {
        let (a, b) = NATMatrixTests.unconnectable[index]
        let harness = Harness.pair(a, b, seed: UInt64(index) + 200, turn: [.udp, .tcp])
        harness.runUntilSettled()
        #expect(!harness.busyLoop)
        for peer in harness.peers {
            #expect(peer.agent.state.isConnected, "\(a)×\(b): \(peer.name) is \(peer.agent.state) \(peer.failureReason ?? "")")
            #expect(peer.agent.selectedPair?.path == "relay", "\(a)×\(b): \(peer.name): \(String(describing: peer.agent.selectedPair))")
        }
        // Application data crosses the relay both ways.
        #expect(harness.a.agent.send([23, 1]) && harness.b.agent.send([23, 2]))
        harness.run(for: .seconds(2)) { !harness.a.receivedData.isEmpty && !harness.b.receivedData.isEmpty }
        #expect(harness.b.receivedData == [[23, 1]] && harness.a.receivedData == [[23, 2]], "\(a)×\(b)")
    }

    @Test(arguments: NATMatrixTests.connectable.indices)
    func aDirectPathIsPreferredOverTheRelay(_ index: Int) {
        let (a, b) = NATMatrixTests.connectable[index]
        let harness = Harness.pair(a, b, seed: UInt64(index) + 300, turn: [.udp])
        harness.runUntilSettled()
        harness.run(for: .seconds(3)) { false }   // let nomination settle on the best pair
        for peer in harness.peers {
            #expect(peer.agent.state.isConnected, "\(a)×\(b): \(peer.name) is \(peer.agent.state)")
            #expect(peer.agent.selectedPair?.path != "relay", "\(a)×\(b): \(peer.name): \(String(describing: peer.agent.selectedPair))")
        }
    }

    @Test func relayOnlyOffersOnlyTheRelayedCandidateAndConnectsThroughIt() {
        let harness = Harness.pair(.none, .none, seed: 401, turn: [.udp], relayOnlyA: true)
        harness.runUntilSettled()
        let offered = harness.a.events.compactMap { if case .localCandidate(let c) = $0 { c } else { nil } }
        #expect(offered.map(\.type) == [.relay])
        #expect(offered.first.map { $0.priority >> 24 } == 0, "type preference 0")
        #expect(offered.first?.relatedAddress == "203.0.113.10", "related address: the mapped one")
        #expect(harness.a.agent.selectedPair?.local.type == .relay)
        #expect(harness.b.agent.selectedPair?.remote.type == .relay)
        #expect(harness.b.agent.selectedPair?.path == "relay")
        #expect(harness.b.events.contains(.gatheringComplete) && harness.a.events.contains(.gatheringComplete))
    }

    /// Both sides fail at once (not at the connect timeout): the relay-only
    /// side has nothing to offer, and the peer learns it from the
    /// end-of-candidates, also when that arrives after its own gathering.
    @Test(arguments: [Duration.milliseconds(40), .seconds(2)])
    func relayOnlyWithoutAnAllocationFailsWithAClearReason(signalingDelay: Duration) {
        let harness = Harness(seed: 402)
        harness.signalingDelay = signalingDelay
        harness.addPeer("A", role: .controlling, relayOnly: true)
        harness.addPeer("B", role: .controlled)
        harness.exchangeCredentials()
        harness.runUntilBothDone()
        #expect(harness.a.failure == .noRelayAllocated(.notConfigured), "\(harness.a.failureReason ?? "")")
        #expect(harness.b.failure == .noRemoteCandidates, "\(harness.b.failureReason ?? "")")
        #expect(harness.network.now < .seconds(5) + signalingDelay, "failed only at \(harness.network.now)")
    }

    @Test func aSilentTURNServerDoesNotHoldUpGathering() {
        let harness = Harness(seed: 403)
        harness.network.severed.insert(Harness.turnServer.ip)
        let peer = harness.addPeer("A", role: .controlling, nat: .portRestricted, turn: [.udp])
        harness.run(for: .seconds(10)) { peer.events.contains(.gatheringComplete) }
        #expect(peer.events.contains(.gatheringComplete))
        #expect(harness.network.now <= .seconds(6), "gathering waited \(harness.network.now)")
    }

    @Test func closeDeletesTheAllocations() {
        let harness = Harness.pair(.symmetric, .symmetric, seed: 404, turn: [.udp, .tcp])
        harness.runUntilSettled()
        #expect(harness.turn.allocations.count == 4)
        for peer in harness.peers { peer.agent.close(now: harness.network.now) }
        harness.run(for: .seconds(2)) { harness.turn.allocations.isEmpty }
        #expect(harness.turn.allocations.isEmpty)
        #expect(harness.turn.deallocated == 4)
    }

    /// The TURN server restarted under a relayed session (every allocation
    /// gone, unannounced): an ICE restart checks each allocation with a
    /// Refresh, replaces the lost ones, and the peers reconnect through
    /// new relayed addresses. Without a restart of the server, the same
    /// relayed addresses are offered again.
    @Test(arguments: [false, true])
    func anICERestartOffersOnlyLiveAllocations(serverRestarted: Bool) {
        let harness = Harness.pair(.symmetric, .symmetric, seed: 405, turn: [.udp])
        harness.runUntilSettled()
        let before = Set(harness.turn.allocations.keys)
        #expect(before.count == 2)
        if serverRestarted { harness.turn.forgetAllocations() }
        Self.restartAndReconnectThroughTheRelay(harness, seed: 406)
        let after = Set(harness.turn.allocations.keys)
        #expect(after.count == 2)
        #expect(after.isDisjoint(with: before) == serverRestarted, "before \(before), after \(after)")
        #expect(harness.a.agent.send([23, 3]))
        harness.run(for: .seconds(2)) { harness.b.receivedData.contains([23, 3]) }
        #expect(harness.b.receivedData.contains([23, 3]))
    }

    /// A's network changes under a relayed chat (its address is replaced):
    /// the UDP allocation, which belonged to the old address's 5-tuple, is
    /// made again from the new one, and after the ICE restart the chat runs
    /// through the new relayed address.
    @Test func aUDPAllocationFollowsTheNewAddressAfterANetworkChange() throws {
        let harness = Harness.pair(.symmetric, .symmetric, seed: 407, turn: [.udp])
        harness.runUntilSettled()
        try #require(harness.a.agent.selectedPair?.path == "relay")
        let before = Set(harness.turn.allocations.keys)
        let old = harness.a.addresses[0]
        let new = try #require(STUNAddress(ip: [10, 1, 0, 3], port: 5000))
        harness.a.realm.endpoints[old] = nil
        harness.a.realm.endpoints[new] = .peer(harness.a)
        harness.a.agent.removeLocalInterface(old)
        harness.a.agent.addLocalInterface(new)
        Self.restartAndReconnectThroughTheRelay(harness, seed: 408)
        // A offered a relayed candidate on a new allocation (the old one is
        // orphaned on the server until it expires).
        let offered = harness.a.events.compactMap { if case .localCandidate(let c) = $0, c.type == .relay { c.address } else { nil } }
        let fresh = Set(harness.turn.allocations.keys).subtracting(before)
        #expect(fresh.count == 1 && offered.contains { fresh.contains($0) }, "offered \(offered), new allocations \(fresh)")
        #expect(harness.a.agent.send([23, 4]))
        harness.run(for: .seconds(2)) { harness.b.receivedData.contains([23, 4]) }
        #expect(harness.b.receivedData.contains([23, 4]))
    }

    /// Both agents restart ICE (new credentials exchanged) and must come
    /// back connected through a relay.
    static func restartAndReconnectThroughTheRelay(_ harness: Harness, seed: UInt64) {
        var generator = SeededRandom(seed: seed)
        for peer in harness.peers { peer.agent.restart(newCredentials: .random(using: &generator)) }
        harness.exchangeCredentials()
        harness.run(for: .seconds(20)) { harness.peers.allSatisfy { $0.agent.selectedPair?.path == "relay" && $0.agent.state.isConnected } }
        for peer in harness.peers {
            #expect(peer.agent.state.isConnected, "\(peer.name) is \(peer.agent.state) \(peer.failureReason ?? "")")
            #expect(peer.agent.selectedPair?.path == "relay")
        }
    }

    /// After a network change a relay-only agent announces its relayed
    /// candidates again (never a host one); the peer recognises one it
    /// already has, which is the sign to restart.
    @Test func aRelayOnlyAgentAnnouncesItsRelayedCandidateAgain() throws {
        let harness = Harness.pair(.none, .none, seed: 409, turn: [.udp], relayOnlyA: true)
        harness.runUntilSettled()
        let count = { (type: ICECandidateType) in
            harness.a.events.filter { if case .localCandidate(let c) = $0 { c.type == type } else { false } }.count
        }
        let relayed = count(.relay)
        harness.a.agent.announceCandidates()
        harness.run(for: .milliseconds(100)) { false }
        #expect(count(.relay) == 2 * relayed && count(.host) == 0)
        let offered = try #require(harness.a.events.compactMap { if case .localCandidate(let c) = $0 { c } else { nil } }.first)
        #expect(harness.b.agent.knowsRemoteCandidate(offered))
        var other = offered
        other.type = .prflx
        #expect(!harness.b.agent.knowsRemoteCandidate(other), "another type at the same address is not the same candidate")
    }
}

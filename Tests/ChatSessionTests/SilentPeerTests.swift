@testable import ChatClient
import Testing

/// A peer that freezes while the connection is set up (SIGSTOP, a laptop
/// lid): its signaling socket stays open, so only its silence tells. And a
/// resumed chat whose peer is not in the room is waiting, not connecting.
@Suite struct SilentPeerTests {
    /// `kill -STOP`: nothing it does any more, but its socket stays open.
    static func freeze(_ client: Client) {
        client.crashed = true
        for peer in client.peers { peer.dead = true }
    }

    static func notAnswering(_ client: Client) -> Int? {
        client.events.lazy.compactMap { if case .peerNotAnswering(let wait) = $0 { wait } else { nil } }.first
    }

    @Test func aPeerFrozenWhileConnectingIsNotAnsweringWithinFiveSecondsThenTheChatGivesUp() throws {
        let world = try World()
        let alice = world.start("alice", .create(expiresIn: 600))
        try #require(world.run(until: { alice.code != nil }))
        let bob = world.start("bob", .join(code: alice.code ?? ""))
        try #require(world.run(until: { alice.count(.peerJoined) == 1 }))
        Self.freeze(bob)
        let frozenAt = world.now
        #expect(world.run(until: { Self.notAnswering(alice) != nil }, limit: .seconds(30)))
        #expect(world.now - frozenAt <= .seconds(5), "said within 5 s")
        #expect(alice.session.phase == .peerNotAnswering)
        let wait = try #require(Self.notAnswering(alice))
        #expect(wait > 100 && wait <= 120, "the deadline it shows: \(wait) s")
        #expect(world.run(until: { alice.status != nil }, limit: .seconds(300)))
        #expect(alice.status == 1 && alice.events.contains(.error(.peerNotAnswering(seconds: 120))), "\(alice.events)")
        #expect(world.now - frozenAt <= .seconds(121), "gives up at the deadline it showed")
    }

    @Test func aPeerThatAnswersInTimeIsNeverCalledSilent() throws {
        let world = try World()
        world.peerLink.delay = .milliseconds(400)   // a slow path: the handshake takes seconds
        let (alice, bob) = try world.pair()
        world.run(for: .seconds(30))
        #expect(Self.notAnswering(alice) == nil && Self.notAnswering(bob) == nil)
        #expect(alice.isConnected && bob.isConnected)
    }

    @Test func aResumedCreatorWhosePeerLeftIsWaitingNotConnecting() throws {
        let world = try World()
        let (alice, bob) = try world.pair()
        let room = try #require(alice.roomID)
        world.crash(alice)
        #expect(world.run(until: { bob.count(.peerAway) == 1 }))
        bob.quit()
        #expect(world.run(until: { bob.status != nil }))
        let again = world.start("alice", .resumeRoom(roomID: room, deviceID: alice.session.deviceID))
        world.run(for: .seconds(10))
        #expect(again.status == nil)
        #expect(again.session.phase == .waitingForPeer, "\(again.session.phase)")
    }
}

@testable import ChatClient
import Testing
import TestSupport

/// Exactly-once, in-order delivery across what breaks a chat: a peer
/// killed and resumed (a new process, a new connection), messages typed
/// while it is away, the signaling server restarting meanwhile.
@Suite struct DeliveryTests {
    @Test func twoPeersChatAndEverythingIsAcknowledged() throws {
        let world = try World()
        let (alice, bob) = try world.pair()
        for line in lines("a", 5) { alice.type(line) }
        for line in lines("b", 5) { bob.type(line) }
        #expect(world.run(until: { bob.messages.count == 5 && alice.messages.count == 5 }))
        world.run(for: .seconds(1))
        #expect(bob.messages == lines("a", 5) && alice.messages == lines("b", 5))
        #expect(alice.session.undeliveredMessages == 0 && bob.session.undeliveredMessages == 0)
    }

    /// The finding: B is killed, A types while B is away, B resumes; every
    /// line arrives once, in order (both directions, and with the server
    /// restarting in the middle).
    @Test(arguments: [(killed: "bob", serverRestart: false), (killed: "alice", serverRestart: false),
                      (killed: "bob", serverRestart: true), (killed: "alice", serverRestart: true)])
    func linesTypedWhileThePeerIsKilledArriveOnceAfterItResumes(killed: String, serverRestart: Bool) throws {
        let world = try World()
        let (alice, bob) = try world.pair()
        let (victim, survivor) = killed == "bob" ? (bob, alice) : (alice, bob)
        survivor.type("before")
        #expect(world.run(until: { victim.messages == ["before"] && survivor.session.undeliveredMessages == 0 }))
        world.crash(victim)
        #expect(world.run(until: { survivor.count(.peerAway) == 1 }))
        #expect(survivor.session.phase == .peerAway)
        for line in lines("m", 20) { survivor.type(line) }
        #expect(survivor.session.undeliveredMessages == 20)
        if serverRestart { world.restartServer(downFor: .seconds(3)) }
        world.run(for: .seconds(10))
        let resumed = world.resume(victim)
        #expect(world.run(until: { resumed.messages.count >= 20 }, limit: .seconds(120)), "\(resumed.events)")
        world.run(for: .seconds(5))
        #expect(resumed.messages == lines("m", 20))
        #expect(survivor.session.undeliveredMessages == 0)
        #expect(survivor.count(.peerBack) == 1 && survivor.count(.peerJoined) == 1)
        // And the other way, on the new connection.
        resumed.type("after")
        #expect(world.run(until: { survivor.messages.last == "after" }))
    }

    /// Messages in flight when the peer's process died (sent, never
    /// acknowledged) go out again on the new connection.
    @Test func messagesInFlightWhenThePeerDiedAreSentAgain() throws {
        let world = try World()
        let (alice, bob) = try world.pair()
        world.peerLink.delay = .milliseconds(500)
        alice.type("in flight 1")
        alice.type("in flight 2")
        world.run(for: .milliseconds(100))
        world.crash(bob)
        world.peerLink.delay = .milliseconds(10)
        world.run(for: .seconds(8))
        #expect(alice.session.undeliveredMessages == 2)
        let bob2 = world.resume(bob)
        #expect(world.run(until: { bob2.messages.count == 2 }, limit: .seconds(60)))
        world.run(for: .seconds(2))
        #expect(bob2.messages == ["in flight 1", "in flight 2"])
        #expect(alice.session.undeliveredMessages == 0)
    }

    /// A plain WebRTC peer (no `ctl` acks): what its SCTP acknowledged counts
    /// as delivered; the rest goes out once more on the next connection.
    @Test func aPeerWithoutAcksGetsWhatSCTPDidNotAcknowledgeOnceMore() throws {
        let world = try World()
        let (alice, bob) = try world.pair(bobPlain: true)
        alice.type("acked")
        #expect(world.run(until: { bob.messages == ["acked"] }))
        world.run(for: .seconds(1))
        #expect(alice.session.undeliveredMessages == 0, "SCTP's ack is delivery for a plain peer")
        world.crash(bob)
        world.run(for: .seconds(6))
        alice.type("while away")
        let bob2 = world.resume(bob)
        #expect(world.run(until: { bob2.messages == ["while away"] }, limit: .seconds(60)), "\(bob2.events)")
        world.run(for: .seconds(2))
        #expect(alice.session.undeliveredMessages == 0)
    }

    /// The server's `peer_left` can overtake the peer's last acknowledgement
    /// (here the peer-to-peer path is slower than the server's, as a
    /// browser's delayed SACK makes it): the line the peer got is not
    /// reported undelivered, and the script exits 0.
    @Test func aPeerThatLeavesRightAfterTheLastLineIsNotCountedAsMissingIt() throws {
        let world = try World()
        world.peerLink = LinkConditions(delay: .milliseconds(30))
        let (alice, bob) = try world.pair(bobPlain: true)
        alice.type("last line")
        #expect(world.run(until: { bob.messages == ["last line"] }))
        bob.leaveNow()
        #expect(world.run(until: { alice.status != nil }, limit: .seconds(10)))
        #expect(!alice.events.contains { if case .undelivered = $0 { true } else { false } }, "\(alice.events)")
        #expect(alice.status == 0)
    }

    /// And a line the peer never got is still counted, within the grace.
    @Test func aLineStillInFlightWhenThePeerLeavesIsCountedUndelivered() throws {
        let world = try World()
        world.peerLink = LinkConditions(delay: .milliseconds(30))
        let (alice, bob) = try world.pair(bobPlain: true)
        bob.leaveNow()
        alice.type("too late")
        let typed = world.now
        #expect(world.run(until: { alice.status != nil }, limit: .seconds(10)))
        #expect(alice.events.contains { if case .undelivered(1) = $0 { true } else { false } }, "\(alice.events)")
        #expect(alice.status == 1)
        #expect(world.now - typed <= ChatSession.peerLeftGrace + .milliseconds(100))
    }
}

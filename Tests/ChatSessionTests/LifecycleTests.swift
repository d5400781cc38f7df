@testable import ChatClient
import Testing

/// Create, join, leave, interrupt and fail, each on the manual clock.
@Suite struct LifecycleTests {
    @Test func whenThePeerQuitsAScriptEndsAndAPersonStaysUntilTheyQuit() throws {
        for interactive in [false, true] {
            let world = try World()
            let (alice, bob) = try world.pair(interactive: interactive)
            alice.quit()
            #expect(world.run(until: { alice.status != nil }))
            #expect(alice.status == 0 && alice.events.contains(.progress("You left the chat.")))
            #expect(world.run(until: { bob.count(.peerLeft) == 1 }))
            world.run(for: .seconds(5))
            if interactive {
                #expect(bob.status == nil && bob.session.phase == .peerLeft, "the person decides when to go")
                bob.type("too late")
                #expect(bob.has { if case .notSent("peer_left", _) = $0 { true } else { false } })
                bob.quit()
            }
            #expect(bob.status == 0, "\(bob.events)")
            #expect(bob.count(.closed) == 1 && alice.count(.closed) == 1)
        }
    }

    @Test func aPeerLeavingBeforeItGotWhatWasTypedIsReportedOnce() throws {
        let world = try World()
        let (alice, bob) = try world.pair()
        for peer in alice.peers { peer.pathDown = true }   // what Alice types now stalls on the way
        alice.type("never arrives")
        bob.leaveNow()
        #expect(world.run(until: { alice.status != nil }), "\(alice.events)")
        #expect(alice.status == 1)
        #expect(alice.count(.undelivered(1)) == 1, "one sentence, not two: \(alice.events)")
    }

    @Test func bothQuittingAtOnceEndsBothCleanly() throws {
        let world = try World()
        let (alice, bob) = try world.pair()
        alice.quit()
        bob.quit()
        #expect(world.run(until: { alice.status != nil && bob.status != nil }))
        #expect(alice.status == 0 && bob.status == 0)
    }

    @Test func endOfInputWaitsUntilEverythingIsAcknowledged() throws {
        let world = try World()
        let (alice, bob) = try world.pair()
        world.peerLink.delay = .milliseconds(300)
        for line in lines("x", 3) { alice.type(line) }
        alice.endOfInput()
        world.run(for: .milliseconds(100))
        #expect(alice.status == nil, "not before the peer has it")
        #expect(world.run(until: { alice.status != nil }))
        #expect(alice.status == 0 && bob.messages == lines("x", 3))
    }

    /// A signal ends the session within `interruptLimit` in every phase,
    /// even with the server gone: 143 for SIGTERM, 130 for SIGINT.
    @Test(arguments: ["waiting", "connected", "peer away", "server down"])
    func aSignalEndsTheSessionPromptlyInEveryPhase(phase: String) throws {
        let world = try World()
        var target: Client
        switch phase {
        case "waiting":
            target = world.start("alice", .create(expiresIn: 600))
            #expect(world.run(until: { target.events.contains(.waiting) }))
        default:
            let (alice, bob) = try world.pair()
            target = alice
            if phase == "peer away" {
                world.crash(bob)
                #expect(world.run(until: { alice.count(.peerAway) == 1 }))
            }
            if phase == "server down" { world.restartServer(downFor: .seconds(600)) }
        }
        let before = world.now
        target.closeGraces = []
        target.interrupt(143)
        #expect(world.run(until: { target.status != nil }, limit: .seconds(5)))
        #expect(target.status == 143)
        #expect(world.now - before <= ChatSession.interruptLimit)
        // The driver keeps the process for a graceful close's goodbye (which a
        // killed or frozen peer never sends) at most this long: within the limit too.
        #expect(target.closeGraces.allSatisfy { $0 <= ChatSession.interruptLimit }, "\(target.closeGraces)")
    }

    @Test func anUnreachableServerIsOneErrorAndExit1() throws {
        let world = try World()
        world.serverUp = false
        let alice = world.start("alice", .create(expiresIn: 600))
        #expect(world.run(until: { alice.status != nil }))
        #expect(alice.status == 1)
        #expect(alice.events.filter { if case .error = $0 { true } else { false } }.count == 1)
    }

    @Test func aServerRestartWhileWaitingStillPairs() throws {
        let world = try World()
        let alice = world.start("alice", .create(expiresIn: 600))
        #expect(world.run(until: { alice.code != nil }))
        world.restartServer(downFor: .seconds(10))
        world.run(for: .seconds(12))
        let bob = world.start("bob", .join(code: alice.code ?? ""))
        #expect(world.run(until: { alice.isConnected && bob.isConnected }, limit: .seconds(60)), "\(alice.events)")
    }

    /// The server drops mid-chat: one line, no false "peer is here", and
    /// the chat goes on directly meanwhile.
    @Test func aServerOutageMidChatIsOneLineAndTheChatGoesOn() throws {
        let world = try World()
        let (alice, bob) = try world.pair()
        world.restartServer(downFor: .seconds(60))
        world.run(for: .seconds(1))
        alice.type("during the outage")
        #expect(world.run(until: { bob.messages == ["during the outage"] }))
        world.run(for: .seconds(70))
        let lost = alice.events.filter { if case .progress(let t) = $0 { t.hasPrefix("Lost the server") } else { false } }
        #expect(lost.count == 1, "\(alice.events)")
        #expect(alice.count(.peerJoined) == 1 && alice.count(.peerBack) == 0 && alice.count(.peerAway) == 0)
        #expect(alice.isConnected && bob.isConnected)
    }
}

/// A message the peer's SCTP discarded as too large is one sentence for
/// the user, and the chat goes on.
@Suite struct RefusedMessageTests {
    @Test func aMessageTooLargeFromThePeerIsReportedAndTheChatGoesOn() throws {
        let world = try World()
        let (alice, bob) = try world.pair()
        let peer = try #require(bob.peers.last)
        bob.deliver(.messageTooLarge, to: peer)
        let expected = ChatEvent.refused(code: "peer_message_too_large",
                                         message: ChatEvent.peerMessageTooLargeSentence(limit: ChatSession.maxMessageBytes))
        #expect(bob.count(expected) == 1)
        #expect(expected.json?.serialized.contains(#""error":"peer_message_too_large""#) == true)
        #expect(ChatEvent.peerMessageTooLargeSentence(limit: 262_144).contains("larger than 262144 bytes"))
        alice.type("still here")
        #expect(world.run(until: { bob.messages == ["still here"] }))
        #expect(bob.status == nil)
    }
}

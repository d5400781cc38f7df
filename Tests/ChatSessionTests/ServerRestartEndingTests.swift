@testable import ChatClient
import PeerConnection
import Testing
import TestSupport

/// A server that crashes mid-chat and comes back, the two clients
/// reconnecting in either order (so the room's initiator may change sides),
/// with or without a blip of the peer path around it: afterwards the chat
/// goes on, and the end of input still ends the session once the peer has
/// every line (the CI failure of `ReconnectTests.aServerCrashMidChatLosesNothing`).
@Suite(.computeThread) struct ServerRestartEndingTests {
    @Test(arguments: 1...Stress.runs(200))
    func endOfInputAfterAServerCrashLeavesOnceDelivered(seed: Int) throws {
        var rng = SeededRandom(seed: UInt64(seed))
        let world = try World(seed: UInt64(seed))
        let (alice, bob) = try world.pair()
        alice.type("a before")
        world.run(for: .seconds(1))
        let reconnect = ["alice": Duration.milliseconds(Int64.random(in: 100...3000, using: &rng)),
                         "bob": Duration.milliseconds(Int64.random(in: 100...3000, using: &rng))]
        world.restartServer(downFor: .milliseconds(Int64.random(in: 100...2500, using: &rng)), reconnectAfter: reconnect)
        if Int.random(in: 0..<3, using: &rng) == 0 {
            // The connection's path breaks while signaling is away (a NAT
            // forgets its mapping): each side's consent expires in turn;
            // only an ICE restart or a new connection brings the chat back.
            let first = Bool.random(using: &rng) ? alice : bob
            let cutAt = Duration.milliseconds(Int64.random(in: 0...3000, using: &rng))
            let skew = Duration.milliseconds(Int64.random(in: 0...1500, using: &rng))
            let second = first === alice ? bob : alice
            let (firstPeer, secondPeer) = (first.peers.last, second.peers.last)
            world.at(cutAt) {
                guard let peer = firstPeer, !peer.closed, !peer.pathDown else { return }
                peer.pathDown = true
                first.deliver(.disconnected(.ice(.consentExpired(seconds: 5))), to: peer)
            }
            world.at(cutAt + skew) {
                // Unless a restart mended the path meanwhile.
                guard firstPeer?.pathDown == true, let peer = secondPeer, !peer.closed, !peer.pathDown else { return }
                peer.pathDown = true
                second.deliver(.disconnected(.ice(.consentExpired(seconds: 5))), to: peer)
            }
        }
        world.run(for: .milliseconds(Int64.random(in: 0...4000, using: &rng)))
        alice.type("a during")
        bob.type("b during")
        world.run(for: .milliseconds(Int64.random(in: 0...6000, using: &rng)))
        alice.type("a after")
        alice.endOfInput()
        let trace = "alice: \(alice.events)\nbob: \(bob.events)"
        #expect(world.run(until: { alice.status != nil }, limit: .seconds(60)), "seed \(seed)\n\(trace)")
        #expect(alice.status == 0, "seed \(seed)\n\(trace)")
        #expect(bob.messages == ["a before", "a during", "a after"], "seed \(seed)\n\(trace)")
        #expect(alice.messages == ["b during"], "seed \(seed)\n\(trace)")
    }

    /// The user leaves in the moment between the signaling socket coming
    /// back and the server answering its `join_room`: that late
    /// `room_joined` (and the `room_ready` after it) must not put the
    /// leaving session back in the room, where it waited for a connection
    /// it had just closed ("peer not answering") instead of exiting.
    @Test(arguments: Array(stride(from: 0, through: 30, by: 2)))
    func leavingWhileTheRejoinIsInFlightStillLeaves(offsetMilliseconds: Int) throws {
        let world = try World()
        let (alice, bob) = try world.pair()
        alice.type("a before")
        world.run(for: .seconds(1))
        world.restartServer(downFor: .milliseconds(100), reconnectAfter: ["alice": .milliseconds(500), "bob": .milliseconds(200)])
        #expect(world.run(until: { alice.connection != nil }))
        world.run(for: .milliseconds(Int64(offsetMilliseconds)))
        alice.endOfInput()
        #expect(world.run(until: { alice.status != nil }, limit: .seconds(30)), "\(alice.events)")
        #expect(alice.status == 0)
        #expect(!alice.has { if case .peerNotAnswering = $0 { true } else { false } })
        #expect(world.run(until: { bob.status != nil }, limit: .seconds(30)), "\(bob.events)")
        #expect(bob.messages == ["a before"] && bob.count(.peerLeft) == 1)
    }
}

@testable import ChatClient
import Signaling
import SignalingServer
import Testing

/// A member whose network changed comes back on a new socket while its old
/// one, silently dead (its address is gone, not even a FIN can leave),
/// still holds its seat: the server answers `room_full` until it frees the
/// seat (chatcli serve: once the old socket misses a ping, 2 s). The chat
/// must be back soon after, whenever that happens, not after a backoff
/// that kept growing meanwhile.
@Suite struct RoomFullTests {
    @Test(arguments: [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0])
    func aMemberBackOnANewSocketRejoinsWithinAQuarterOfASecondOfItsSeatFreeing(seatFreesAfter seconds: Double) throws {
        let world = try World()
        let (alice, bob) = try world.pair()
        let old = try #require(alice.connection)
        // The network changed: alice's client drops its socket and connects
        // again at once; the server still sees the old one.
        alice.connection = nil
        alice.signalingEvent(.lost(.connectionLost("the network changed"), retryIn: .zero))
        world.connectSignaling(alice)
        try #require(world.run(until: { alice.connection != nil }))
        let seatFree = world.now + .milliseconds(Int64(seconds * 1000))
        world.at(.milliseconds(Int64(seconds * 1000))) { world.route(world.hub.disconnect(old)) }
        #expect(world.run(until: { bob.count(.peerBack) == 1 }, limit: .seconds(60)), "\(bob.events)")
        #expect(world.now - seatFree <= .milliseconds(250), "back \(world.now - seatFree) after the seat freed")
        alice.type("after the move")
        #expect(world.run(until: { bob.messages == ["after the move"] }))
    }
}

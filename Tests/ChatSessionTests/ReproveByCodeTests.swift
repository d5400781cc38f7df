@testable import ChatClient
import PAKE
import Testing

/// `chatcli receive CODE` killed and run again while `send` still waits: the
/// new process rejoins the room it saved and comes back with another
/// certificate, which the code's secret proves again (a second PAKE on the
/// new connection). A process without the secret gets nowhere.
@Suite struct ReproveByCodeTests {
    /// A sender (reproves by code, refuses the unproven, pins nothing) and a
    /// receiver that typed the whole code, both past the PAKE.
    static func transferPair(_ world: World) throws -> (sender: Client, receiver: Client, code: String) {
        let sender = world.start("sender", .create(expiresIn: 600), pinsPeer: false, unproven: .refuse, reprovesByCode: true)
        try #require(world.run(until: { sender.code != nil }))
        let code = try #require(sender.code)
        let receiver = world.start("receiver", .join(code: code), pinsPeer: false, unproven: .refuse)
        try #require(world.run(until: { PAKETests.auth(sender) == .pake && PAKETests.auth(receiver) == .pake }), "\(sender.events)")
        return (sender, receiver, code)
    }

    static func connectedCount(_ client: Client) -> Int {
        client.events.filter { if case .connected(_, .pake) = $0 { true } else { false } }.count
    }

    @Test func aReceiverRerunWithTheSameCodeIsProvenAgainAndTheSenderGoesOn() throws {
        let world = try World()
        let (sender, receiver, code) = try Self.transferPair(world)
        let room = try #require(receiver.roomID)
        world.crash(receiver)
        #expect(world.run(until: { sender.count(.peerAway) == 1 }))

        let again = world.start("receiver", .resumeRoom(roomID: room, deviceID: receiver.session.deviceID), pinsPeer: false,
                                unproven: .refuse, code: code)
        #expect(world.run(until: { Self.connectedCount(sender) == 2 && PAKETests.auth(again) == .pake }, limit: .seconds(60)),
                "\(sender.events)\n\(again.events)")
        #expect(PAKETests.unproven(sender).isEmpty, "a new certificate proven by the code is not an unproven peer")
        sender.type("still here")
        #expect(world.run(until: { again.messages == ["still here"] }))
        #expect(sender.status == nil)
    }

    @Test func aRerunWithAnotherSecretEndsTheTransferInsteadOfJoiningIt() throws {
        let world = try World()
        let (sender, receiver, code) = try Self.transferPair(world)
        let room = try #require(receiver.roomID)
        world.crash(receiver)
        #expect(world.run(until: { sender.count(.peerAway) == 1 }))
        let typed = try #require(CodeSecret(text: String(code.dropFirst(7))))
        let wrong = CodeSecret(indices: typed.indices.map { $0 &+ 1 })
        let wrongCode = "\(code.prefix(6))-\(wrong)"
        let intruder = world.start("intruder", .resumeRoom(roomID: room, deviceID: receiver.session.deviceID), pinsPeer: false,
                                   unproven: .refuse, code: wrongCode)
        #expect(world.run(until: { sender.status != nil }, limit: .seconds(60)), "\(sender.events)")
        #expect(PAKETests.failedPAKE(sender) && sender.status == 1)
        #expect(intruder.messages.isEmpty && PAKETests.auth(intruder) == nil)
    }
}

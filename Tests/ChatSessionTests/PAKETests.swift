@testable import ChatClient
import Testing

/// Codes with a secret part: the CPace exchange on `ctl` between real
/// sessions (against the real server cores), what it proves, and every way
/// it must end the chat instead.
@Suite struct PAKETests {
    static func auth(_ client: Client) -> PeerAuth? {
        client.events.lazy.compactMap { if case .connected(_, let auth) = $0 { auth } else { nil } }.first
    }

    static func failedPAKE(_ client: Client) -> Bool { client.events.contains(.error(.pakeFailed)) }

    /// The reasons of the client's `unproven` events, in order.
    static func unproven(_ client: Client) -> [UnprovenReason] {
        client.events.compactMap { if case .unproven(_, let reason) = $0 { reason } else { nil } }
    }

    static func notices(_ client: Client) -> [String] {
        client.events.compactMap { if case .notice(let text) = $0 { text } else { nil } }
    }

    /// Alice creates; Bob joins with `code(aliceCode)`; lines typed at once on both sides.
    static func start(_ world: World, bobCode: (String) -> String, bobPlain: Bool = false, alicePlain: Bool = false,
                      unproven: UnprovenPolicy = .accept, bobUnproven: UnprovenPolicy? = nil) throws -> (Client, Client) {
        let alice = world.start("alice", .create(expiresIn: 600), plain: alicePlain, unproven: unproven)
        try #require(world.run(until: { alice.code != nil }))
        let bob = world.start("bob", .join(code: bobCode(alice.code ?? "")), plain: bobPlain, unproven: bobUnproven ?? unproven)
        alice.type("from alice")
        bob.type("from bob")
        return (alice, bob)
    }

    @Test func theCodeHasASecretPartThatNeverReachesTheServer() throws {
        let world = try World()
        let alice = world.start("alice", .create(expiresIn: 600))
        try #require(world.run(until: { alice.code != nil }))
        let code = try #require(alice.code)
        #expect(code.count > 7 && code.dropFirst(6).first == "-")
        let locator = String(code.prefix(6))
        #expect(alice.updates.first == .pending(code: code, deviceID: alice.session.deviceID, expires: alice.session.expires),
                "saved while it waits, so a resumed creator shows the same code")
        let bob = world.start("bob", .join(code: code))
        #expect(world.run(until: { Self.auth(alice) != nil && Self.auth(bob) != nil }))
        guard case .joined(let saved, let room, let device, _)? = bob.updates.first else {
            Issue.record("no joined update: \(bob.updates)")
            return
        }
        #expect(saved == locator && room == bob.roomID && device == bob.session.deviceID, "the joiner saves only the digits")
    }

    @Test func theSameCodeVerifiesBothSidesAndOnlyThenDelivers() throws {
        let world = try World()
        let (alice, bob) = try Self.start(world) { $0 }
        world.run(until: { bob.session.phase.isConnected && alice.session.phase.isConnected })
        #expect(alice.messages.isEmpty && bob.messages.isEmpty, "nothing before key confirmation")
        #expect(world.run(until: { alice.messages == ["from bob"] && bob.messages == ["from alice"] }), "\(alice.events) \(bob.events)")
        #expect(Self.auth(alice) == .pake && Self.auth(bob) == .pake)
        #expect(Self.notices(alice).isEmpty && Self.notices(bob).isEmpty)
        // The connected event comes before the first message.
        let connectedAt = try #require(bob.events.firstIndex { if case .connected = $0 { true } else { false } })
        #expect(connectedAt < (bob.events.firstIndex(of: .message("from alice")) ?? 0))
    }

    @Test func anotherSecretFailsBothSidesDeliversNothingAndBurnsTheRoom() throws {
        let world = try World()
        let (alice, bob) = try Self.start(world) { String($0.prefix(6)) + "-able-zesty" }
        #expect(world.run(until: { alice.status != nil && bob.status != nil }), "\(alice.events)\n\(bob.events)")
        #expect(alice.status == 1 && bob.status == 1)
        #expect(Self.failedPAKE(alice) && Self.failedPAKE(bob))
        #expect(alice.messages.isEmpty && bob.messages.isEmpty)
        #expect(alice.updates.last == .closed && bob.updates.last == .closed)
        #expect(Self.auth(alice) == nil && Self.auth(bob) == nil, "never announced as connected")
        // One guess per room: the code cannot be tried again.
        let carol = world.start("carol", .join(code: try #require(alice.code)))
        #expect(world.run(until: { carol.status != nil }))
        #expect(carol.status == 1 && !carol.events.contains { if case .connected = $0 { true } else { false } })
    }

    @Test func aServerSwappingFingerprintsFailsThePAKE() throws {
        let world = try World()
        world.interceptor = "mallory"
        let (alice, bob) = try Self.start(world) { $0 }
        #expect(world.run(until: { alice.status != nil && bob.status != nil }), "\(alice.events)\n\(bob.events)")
        #expect(alice.status == 1 && bob.status == 1)
        #expect(Self.failedPAKE(alice) && Self.failedPAKE(bob))
        #expect(alice.messages.isEmpty && bob.messages.isEmpty)
    }

    @Test func aJoinerWithOnlyTheDigitsChatsUnprovenOnlyAfterSayingSoOnBothSides() throws {
        let world = try World()
        let (alice, bob) = try Self.start(world) { String($0.prefix(6)) }
        #expect(world.run(until: { alice.messages == ["from bob"] && bob.messages == ["from alice"] }), "\(alice.events) \(bob.events)")
        #expect(Self.auth(alice) == PeerAuth.none && Self.auth(bob) == PeerAuth.none)
        #expect(Self.unproven(alice) == [.noPAKE] && Self.unproven(bob) == [.digitsOnly], "said before anything crossed (--accept-unproven)")
    }

    @Test func aBrowserPeerWithTheDigitsChatsUnprovenAtOnceNotAfterTheDeadline() throws {
        let world = try World()
        let (alice, bob) = try Self.start(world, bobCode: { String($0.prefix(6)) }, bobPlain: true)
        // Its description announces no PAKE: nothing to wait for once the channel is open.
        try #require(world.run(until: { alice.peers.last?.isOpen == true }))
        let open = world.now
        try #require(world.run(until: { Self.auth(alice) != nil }))
        #expect(world.now - open <= world.peerLink.delay * 2, "at most one round trip, not the \(ChatSession.pakeDeadline) deadline")
        #expect(world.run(until: { alice.messages == ["from bob"] && bob.messages == ["from alice"] }), "\(alice.events) \(bob.events)")
        #expect(Self.auth(alice) == PeerAuth.none)
        #expect(Self.unproven(alice) == [.noPAKE])
    }

    @Test func aJoinerThatTypedASecretNeverFallsBackToAnUnprovenChat() throws {
        let world = try World()
        // The creator cannot run the PAKE (it drops `ctl`, as a browser would).
        let (alice, bob) = try Self.start(world, bobCode: { $0 }, alicePlain: true)
        try #require(world.run(until: { bob.peers.last?.isOpen == true }))
        let open = world.now
        #expect(world.run(until: { bob.status != nil }), "\(bob.events)")
        #expect(world.now - open < ChatSession.pakeDeadline, "its description announced no PAKE: no wait")
        #expect(bob.status == 1 && Self.failedPAKE(bob) && bob.messages.isEmpty)
        #expect(!alice.messages.contains("from bob"))
    }
}

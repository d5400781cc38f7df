@testable import ChatClient
import Testing

/// `/verify ok` is kept: the peer's pinned certificate is saved as verified
/// by the safety words, so later connections with it (a resume of either
/// side included) are `"auth":"words"` without another comparison, and a
/// peer with another certificate is still refused.
@Suite struct VerifiedWordsTests {
    static func sas(_ client: Client) -> String? {
        client.events.lazy.compactMap { if case .connected(let info, _) = $0 { info.sas } else { nil } }.last
    }

    /// Six digits only: an unproven chat whose words both sides see.
    static func unprovenPair(_ world: World) throws -> (Client, Client) {
        let (alice, bob) = try PAKETests.start(world) { String($0.prefix(6)) }
        try #require(world.run(until: { alice.messages == ["from bob"] && bob.messages == ["from alice"] }))
        #expect(PinningTests.connectedAuths(alice) == [PeerAuth.none] && PinningTests.connectedAuths(bob) == [PeerAuth.none])
        return (alice, bob)
    }

    @Test func verifyingTheWordsSavesThePinAsVerifiedOnce() throws {
        let world = try World()
        let (_, bob) = try Self.unprovenPair(world)
        let first = try #require(PinningTests.pins(bob).last)
        #expect(!first.verifiedByWords && !first.provenByCode)
        #expect(!bob.session.peerVerifiedByWords(sas: "not the words"), "other words verify nothing")
        bob.process()
        #expect(PinningTests.pins(bob) == [first])
        #expect(bob.session.peerVerifiedByWords(sas: try #require(Self.sas(bob))))
        bob.process()
        #expect(bob.session.peerVerifiedByWords(sas: try #require(Self.sas(bob))))
        bob.process()
        #expect(PinningTests.pins(bob) == [first, PinnedPeer(fingerprint: first.fingerprint, provenByCode: false, verifiedByWords: true)],
                "saved once")
    }

    @Test func aResumedChatStaysVerifiedByTheWordsAndTheOtherSideIsNotToldSo() throws {
        let world = try World()
        let (alice, bob) = try Self.unprovenPair(world)
        bob.session.peerVerifiedByWords(sas: try #require(Self.sas(bob)))
        bob.process()
        world.crash(bob)
        world.run(for: .seconds(10))
        let bob2 = world.resume(bob)
        bob2.type("again")
        alice.type("welcome back")
        #expect(world.run(until: { alice.messages.contains("again") && bob2.messages.contains("welcome back") }),
                "\(alice.events)\n\(bob2.events)")
        #expect(PinningTests.connectedAuths(bob2) == [.words], "the same certificate: verified without comparing again")
        #expect(Self.sas(bob2) == Self.sas(bob), "both certificates kept: the same words")
        #expect(PinningTests.connectedAuths(alice).last == PeerAuth.none, "Alice never verified them")
        #expect(PinningTests.pins(bob2).isEmpty, "nothing new to save")
        let json = try #require(bob2.events.first { if case .connected = $0 { true } else { false } }?.json)
        #expect(json["auth"]?.stringValue == "words")
    }

    @Test func thePathComingBackAfterVerifyingSaysWords() throws {
        let world = try World()
        let (alice, bob) = try Self.unprovenPair(world)
        alice.session.peerVerifiedByWords(sas: try #require(Self.sas(alice)))
        alice.process()
        for peer in [try #require(alice.peers.last), try #require(bob.peers.last)] {
            peer.pathDown = true
            peer.owner(in: world)?.deliver(.disconnected(.ice(.consentExpired(seconds: 5))), to: peer)
        }
        #expect(world.run(until: { alice.has { if case .reconnected = $0 { true } else { false } } }), "\(alice.events)")
        let restored = alice.events.compactMap { if case .reconnected(_, _, let auth) = $0 { auth } else { nil } }
        #expect(restored == [.words])
    }

    @Test func aVerifiedPeerThatComesBackWithAnotherCertificateWaitsForThePersonAgain() throws {
        let world = try World()
        // Alice at her terminal; Bob a script that accepted up front.
        let (alice, bob) = try PAKETests.start(world, bobCode: { String($0.prefix(6)) }, unproven: .ask, bobUnproven: .accept)
        try #require(world.run(until: { TrustGateTests.sas(alice) != nil }))
        #expect(alice.session.peerVerifiedByWords(sas: try #require(TrustGateTests.sas(alice))))
        alice.process()
        try #require(world.run(until: { alice.messages == ["from bob"] && bob.messages == ["from alice"] }))
        world.crash(bob)
        world.run(for: .seconds(10))
        let impostor = world.start("bob", .resumeRoom(roomID: try #require(bob.roomID), deviceID: bob.session.deviceID),
                                   certificate: "mallory", pinnedPeer: PinningTests.pins(bob).last)
        impostor.type("trust me")
        #expect(world.run(until: { PAKETests.unproven(alice).last == .peerChanged }), "\(alice.events)")
        world.run(for: .seconds(30))
        #expect(alice.status == nil && alice.session.phase == .unproven)
        #expect(!alice.messages.contains("trust me"))
    }
}

@testable import ChatClient
import Testing

/// Pinned per-session identities: a resumed session presents its saved
/// certificate, the peer's certificate is pinned at the first connection,
/// a peer with another certificate is refused (`peer_changed`), and a chat
/// the code proved stays proven across resumes.
@Suite struct PinningTests {
    static func connectedAuths(_ client: Client) -> [PeerAuth] {
        client.events.compactMap { if case .connected(_, let auth) = $0 { auth } else { nil } }
    }

    static func pins(_ client: Client) -> [PinnedPeer] {
        client.updates.compactMap { if case .peerPinned(let pin) = $0 { pin } else { nil } }
    }

    static func provenPair(_ world: World, unproven: UnprovenPolicy = .accept) throws -> (Client, Client) {
        let (alice, bob) = try PAKETests.start(world, bobCode: { $0 }, unproven: unproven)
        try #require(world.run(until: { alice.messages == ["from bob"] && bob.messages == ["from alice"] }))
        return (alice, bob)
    }

    @Test func theCodeProvenPeerIsPinnedOnceOnEachSide() throws {
        let world = try World()
        let (alice, bob) = try Self.provenPair(world)
        let bobPeer = try #require(bob.peers.last), alicePeer = try #require(alice.peers.last)
        #expect(Self.pins(alice) == [PinnedPeer(fingerprint: try #require(alicePeer.remoteCertificateFingerprint), provenByCode: true)])
        #expect(Self.pins(bob) == [PinnedPeer(fingerprint: try #require(bobPeer.remoteCertificateFingerprint), provenByCode: true)])
    }

    @Test func aResumeWithTheSavedCertificateStaysProvenAndTheChatGoesOn() throws {
        let world = try World()
        let (alice, bob) = try Self.provenPair(world)
        world.crash(bob)
        world.run(for: .seconds(10))
        let bob2 = world.resume(bob)
        bob2.type("again")
        alice.type("welcome back")
        #expect(world.run(until: { alice.messages.contains("again") && bob2.messages.contains("welcome back") }),
                "\(alice.events)\n\(bob2.events)")
        #expect(Self.connectedAuths(bob2) == [.pake], "proven in the earlier process: no PAKE, no words")
        #expect(Self.connectedAuths(alice).last == .pake)
        #expect(PAKETests.notices(alice).isEmpty && PAKETests.notices(bob2).isEmpty)
        #expect(Self.pins(bob2).isEmpty, "nothing new to save")
    }

    @Test func thePathComingBackKeepsTheAuthInItsConnectedEvent() throws {
        let world = try World()
        let (alice, bob) = try Self.provenPair(world)
        for peer in [try #require(alice.peers.last), try #require(bob.peers.last)] {
            peer.pathDown = true
            peer.owner(in: world)?.deliver(.disconnected(.ice(.consentExpired(seconds: 5))), to: peer)
        }
        #expect(world.run(until: { alice.has { if case .reconnected = $0 { true } else { false } } }), "\(alice.events)")
        let restored = alice.events.compactMap { if case .reconnected(_, _, let auth) = $0 { auth } else { nil } }
        #expect(restored == [.pake])
        let json = try #require(alice.events.last { if case .reconnected = $0 { true } else { false } }?.json)
        #expect(json["auth"]?.stringValue == "pake")
    }

    @Test func aPeerThatComesBackWithAnotherCertificateIsRefused() throws {
        let world = try World()
        let (alice, bob) = try Self.provenPair(world, unproven: .refuse)
        world.crash(bob)
        world.run(for: .seconds(10))
        // Bob's session as someone else would resume it: same room and device id, another certificate.
        let impostor = world.start("bob", .resumeRoom(roomID: try #require(bob.roomID), deviceID: bob.session.deviceID),
                                   certificate: "mallory", pinnedPeer: Self.pins(bob).last)
        impostor.type("trust me")
        #expect(world.run(until: { alice.status != nil }), "\(alice.events)")
        #expect(alice.status == 1)
        #expect(alice.events.contains(.error(.peerChanged(session: nil))))
        #expect(!alice.messages.contains("trust me"))
        #expect(!alice.updates.contains(.closed), "kept, so that resume --accept-new-peer can accept a peer that really started over")
        #expect(ClientError.peerChanged(session: "work").message.contains("chatcli resume work --accept-new-peer"))
        #expect(ClientError.peerChanged(session: nil).code == "peer_changed")
    }

    @Test func aResumeThatFindsAnotherPeerCertificateIsRefused() throws {
        let world = try World()
        let (alice, bob) = try Self.provenPair(world)
        world.crash(bob)
        world.run(for: .seconds(10))
        // The store pinned another certificate than the one Alice shows (a tampered record, or another Alice).
        let bob2 = world.start("bob", .resumeRoom(roomID: try #require(bob.roomID), deviceID: bob.session.deviceID),
                               certificate: bob.certificate, pinnedPeer: PinnedPeer(fingerprint: FakePeer.fingerprint("eve"), provenByCode: true),
                               unproven: .refuse)
        bob2.type("hello?")
        #expect(world.run(until: { bob2.status != nil }), "\(bob2.events)")
        #expect(bob2.status == 1 && bob2.events.contains(.error(.peerChanged(session: nil))))
        #expect(!alice.messages.contains("hello?") && bob2.messages.isEmpty)
        #expect(!Self.connectedAuths(bob2).contains(.pake))
    }

    @Test func acceptingTheNewPeerPinsItAfreshUnproven() throws {
        let world = try World()
        let (alice, bob) = try Self.provenPair(world)
        world.crash(bob)
        world.run(for: .seconds(10))
        // `resume --accept-new-peer`: nothing pinned at start.
        let bob2 = world.start("bob", .resumeRoom(roomID: try #require(bob.roomID), deviceID: bob.session.deviceID),
                               certificate: bob.certificate)
        bob2.type("again")
        #expect(world.run(until: { alice.messages.contains("again") }), "\(alice.events)\n\(bob2.events)")
        #expect(Self.connectedAuths(bob2) == [PeerAuth.none], "a certificate accepted by hand is not proven by the code")
        #expect(Self.pins(bob2).map(\.provenByCode) == [false])
    }

    @Test func sessionsSavedBeforeIdentitiesWereKeptStillResume() throws {
        let world = try World()
        let alice = world.start("alice", .create(expiresIn: 600), pinsPeer: false)
        try #require(world.run(until: { alice.code != nil }))
        let bob = world.start("bob", .join(code: try #require(alice.code)), pinsPeer: false)
        #expect(world.run(until: { Self.connectedAuths(alice) == [.pake] && Self.connectedAuths(bob) == [.pake] }))
        world.crash(bob)
        world.run(for: .seconds(10))
        // An old record: no certificate saved, so the resumed process shows a new one.
        let bob2 = world.start("bob", .resumeRoom(roomID: try #require(bob.roomID), deviceID: bob.session.deviceID), pinsPeer: false)
        bob2.type("again")
        #expect(world.run(until: { alice.messages.contains("again") }), "\(alice.events)")
        #expect(PAKETests.unproven(alice) == [.newCertificate])
        #expect(Self.connectedAuths(alice).last == PeerAuth.none)
        #expect(Self.pins(alice).isEmpty)
    }
}

@testable import ChatClient
import Testing

/// The trust gate (ChatSession+Trust) between real sessions: a peer the
/// code did not prove gets nothing and shows nothing — no line, no name, no
/// `hello` — until the person accepts it with the safety words, or a script
/// said `--accept-unproven` in advance; otherwise the chat ends.
@Suite struct TrustGateTests {
    static func sas(_ client: Client) -> String? {
        client.events.lazy.compactMap { if case .unproven(let sas, _) = $0 { sas } else { nil } }.first
    }

    static func announced(_ client: Client) -> Bool {
        client.has { if case .connected = $0 { true } else { false } }
    }

    static func names(_ client: Client) -> [String] {
        client.events.compactMap { if case .control(.name(let name)) = $0 { name } else { nil } }
    }

    @Test func theDigitsAloneCrossNothingEitherWayUntilEachPersonAccepts() throws {
        let world = try World()
        let (alice, bob) = try PAKETests.start(world, bobCode: { String($0.prefix(6)) }, unproven: .ask)
        try #require(world.run(until: { Self.sas(alice) != nil && Self.sas(bob) != nil }), "\(alice.events)\n\(bob.events)")
        #expect(PAKETests.unproven(alice) == [.noPAKE] && PAKETests.unproven(bob) == [.digitsOnly], "\(alice.events)\n\(bob.events)\n\(alice.peers.map(\.sentControl)) \(bob.peers.map(\.sentControl))")
        #expect(alice.session.phase == .unproven && bob.session.phase == .unproven)
        // Long after the channel opened: still nothing either way.
        world.run(for: .seconds(60))
        #expect(alice.messages.isEmpty && bob.messages.isEmpty, "\(alice.events)\n\(bob.events)")
        #expect(!Self.announced(alice) && !Self.announced(bob))
        for client in [alice, bob] {
            #expect(client.peers.allSatisfy { $0.sentOnChat == 0 }, "not one line left \(client.name)'s side")
            #expect(client.peers.allSatisfy { $0.sentControl.allSatisfy { $0.contains(#""type":"pake""#) } },
                    "no hello, ack or name either: \(client.peers.map(\.sentControl))")
        }
        #expect(!alice.session.sendControl(.name("alice")), "no name before the gate opens")
        // Words that are not on screen open nothing.
        #expect(!alice.session.peerVerifiedByWords(sas: "not the words"))
        #expect(alice.session.phase == .unproven)
        // Alice compared the words and accepts: her line goes, Bob still shows nothing.
        #expect(alice.session.peerVerifiedByWords(sas: try #require(Self.sas(alice))))
        alice.process()
        #expect(alice.session.sendControl(.name("alice")))
        alice.process()
        world.run(for: .seconds(10))
        #expect(alice.messages.isEmpty, "Bob has not accepted: nothing of his")
        #expect(bob.messages.isEmpty && Self.names(bob).isEmpty, "held until Bob accepts: \(bob.events)")
        #expect(bob.session.peerVerifiedByWords(sas: try #require(Self.sas(bob))))
        bob.process()
        #expect(world.run(until: { alice.messages == ["from bob"] && bob.messages == ["from alice"] }), "\(alice.events)\n\(bob.events)")
        #expect(Self.names(bob) == ["alice"])
        #expect(PAKETests.auth(alice) == .words && PAKETests.auth(bob) == .words)
        #expect(Self.sas(alice) == Self.sas(bob), "no one in the middle: the same words")
    }

    /// Either side a script without --accept-unproven, the other one that accepts up front.
    @Test(arguments: [true, false])
    func aScriptWithoutAcceptUnprovenEndsHavingSentAndShownNothing(creatorRefuses: Bool) throws {
        let world = try World()
        let (alice, bob) = try PAKETests.start(world, bobCode: { String($0.prefix(6)) }, unproven: creatorRefuses ? .refuse : .accept,
                                               bobUnproven: creatorRefuses ? .accept : .refuse)
        let script = creatorRefuses ? alice : bob
        #expect(world.run(until: { script.status != nil }), "\(alice.events)\n\(bob.events)")
        #expect(script.status == 1)
        #expect(script.events.contains(.error(.peerUnproven)), "\(script.events)")
        #expect(!script.events.contains { if case .undelivered = $0 { true } else { false } }, "one sentence: \(script.events)")
        #expect(script.messages.isEmpty && !Self.announced(script))
        #expect(script.peers.allSatisfy { $0.sentOnChat == 0 }, "not one line sent")
        #expect(script.peers.allSatisfy { $0.sentControl.allSatisfy { $0.contains(#""type":"pake""#) } }, "\(script.peers.map(\.sentControl))")
        // The event says why before the error does.
        let said = try #require(script.events.firstIndex { if case .unproven = $0 { true } else { false } })
        #expect(said < (script.events.firstIndex(of: .error(.peerUnproven)) ?? 0))
        #expect(ClientError.peerUnproven.code == "unproven_peer")
        #expect(ClientError.peerUnproven.message.contains("--accept-unproven"))
    }

    @Test func acceptUnprovenSaysSoBeforeAnythingCrosses() throws {
        let world = try World()
        let (alice, bob) = try PAKETests.start(world, bobCode: { String($0.prefix(6)) }, unproven: .accept)
        #expect(world.run(until: { alice.messages == ["from bob"] && bob.messages == ["from alice"] }))
        for client in [alice, bob] {
            let said = try #require(client.events.firstIndex { if case .unproven = $0 { true } else { false } })
            let connected = try #require(client.events.firstIndex { if case .connected = $0 { true } else { false } })
            #expect(said < connected && connected < (client.events.firstIndex { if case .message = $0 { true } else { false } } ?? 0))
        }
        let json = try #require(alice.events.first { if case .unproven = $0 { true } else { false } }?.json)
        #expect(json["event"]?.stringValue == "unproven" && json["reason"]?.stringValue == "no_pake" && json["sas"]?.stringValue == Self.sas(alice))
    }

    @Test func aBrowserPeerWaitsForThePersonToo() throws {
        let world = try World()
        // The browser itself runs no gate (it is not chatcli): as --accept-unproven.
        let (alice, bob) = try PAKETests.start(world, bobCode: { String($0.prefix(6)) }, bobPlain: true, unproven: .ask, bobUnproven: .accept)
        try #require(world.run(until: { Self.sas(alice) != nil }))
        world.run(for: .seconds(30))
        #expect(alice.messages.isEmpty && bob.messages.isEmpty && alice.peers.allSatisfy { $0.sentOnChat == 0 })
        #expect(alice.session.peerVerifiedByWords(sas: try #require(Self.sas(alice))))
        alice.process()
        #expect(world.run(until: { alice.messages == ["from bob"] && bob.messages == ["from alice"] }), "\(alice.events)\n\(bob.events)")
    }

    @Test func aResumedPeerWithAnotherCertificateWaitsForThePersonWhoCanPinItAfresh() throws {
        let world = try World()
        let (alice, bob) = try PinningTests.provenPair(world, unproven: .ask)
        world.crash(bob)
        world.run(for: .seconds(10))
        let impostor = world.start("bob", .resumeRoom(roomID: try #require(bob.roomID), deviceID: bob.session.deviceID),
                                   certificate: "mallory", pinnedPeer: PinningTests.pins(bob).last)
        impostor.type("trust me")
        try #require(world.run(until: { PAKETests.unproven(alice) == [.peerChanged] }), "\(alice.events)")
        world.run(for: .seconds(30))
        #expect(alice.status == nil && !alice.messages.contains("trust me"), "waits, shows nothing")
        #expect(alice.session.peerVerifiedByWords(sas: try #require(Self.sas(alice))))
        alice.process()
        #expect(world.run(until: { alice.messages.contains("trust me") }), "\(alice.events)")
        #expect(PinningTests.pins(alice).last?.fingerprint == FakePeer.fingerprint("mallory"), "the person's choice is pinned")
    }
}

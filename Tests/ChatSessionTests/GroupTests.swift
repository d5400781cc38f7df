@testable import ChatClient
import Testing
import FileTransfer
import TestSupport

/// Group rooms on the chat core (issue 31): members are `GroupSession`s, one
/// pairwise `ChatSession` per other member, against the real server cores
/// and the shared network emulator, on the manual clock.
@Suite(.computeThread) struct GroupTests {
    /// `create --group`, then each of `names` joins with the whole code; all connected pairwise.
    static func room(_ world: World, _ names: [String], max: Int = 8) throws -> [Client] {
        let creator = world.startGroup(names[0], .create(max: max))
        #expect(world.run(until: { creator.code != nil }))
        let code = try #require(creator.code)
        var members = [creator]
        for name in names.dropFirst() { members.append(world.startGroup(name, .join(code: code))) }
        let everyoneConnected = world.run(until: { members.allSatisfy { $0.connectedMembers.count == names.count - 1 } })
        #expect(everyoneConnected, "\(members.map { "\($0.name): \($0.events)" }.joined(separator: "\n"))")
        world.run(for: .seconds(1))   // the names, on `ctl`, follow the connections
        return members
    }

    @Test func threeMembersEachSeeTheOthersLinesWithTheirNames() throws {
        let world = try World()
        let members = try Self.room(world, ["alice", "bob", "carol"], max: 3)
        let (alice, bob, carol) = (members[0], members[1], members[2])
        alice.type("hello all")
        bob.type("hi alice")
        bob.type("and carol")
        world.run(for: .seconds(2))
        #expect(bob.groupMessages == [.init("alice", "hello all")])
        #expect(carol.groupMessages.filter { $0.name == "alice" } == [.init("alice", "hello all")])
        #expect(carol.groupMessages.filter { $0.name == "bob" } == [.init("bob", "hi alice"), .init("bob", "and carol")])
        #expect(alice.groupMessages.filter { $0.name == "bob" }.map(\.text) == ["hi alice", "and carol"])
        #expect(alice.group.who.map(\.name).sorted() == ["bob", "carol"])
        for member in members { #expect(member.group.who.allSatisfy { $0.phase?.isConnected == true }) }

        // `/to NAME TEXT`: one member only; an unknown name is said, not sent.
        alice.type("/to carol just for carol")
        alice.type("/to dave anyone there")
        alice.type("for both again")
        world.run(for: .seconds(2))
        #expect(carol.groupMessages.filter { $0.name == "alice" }.map(\.text) == ["hello all", "just for carol", "for both again"])
        #expect(bob.groupMessages.filter { $0.name == "alice" }.map(\.text) == ["hello all", "for both again"])
        #expect(alice.events.contains { if case .notSent("no_such_member", _) = $0 { true } else { false } })
    }
}

extension GroupTests {
    /// Eight members: the joiners start at random moments, on a path that
    /// loses, jitters and reorders; every pair connects and every line of
    /// every sender reaches every other member once, in the order typed.
    @Test(arguments: 1...Stress.runs(8))
    func eightMembersJoiningInRandomOrderUnderLossEachGetEveryLineOnceInOrder(seed: Int) throws {
        var rng = SeededRandom(seed: UInt64(seed))
        let world = try World(seed: UInt64(seed))
        world.peerLink = LinkConditions(delay: .milliseconds(20), jitter: .milliseconds(30), loss: 0.05, reorder: 0.1,
                                        reorderDelay: .milliseconds(60))
        world.serverLink = LinkConditions(delay: .milliseconds(10), jitter: .milliseconds(20))
        let creator = world.startGroup("m0", .create(max: 8))
        #expect(world.run(until: { creator.code != nil }))
        let code = try #require(creator.code)
        var members = [creator]
        for name in (1..<8).map({ "m\($0)" }).shuffled(using: &rng) {
            world.run(for: .milliseconds(Int64.random(in: 0...1500, using: &rng)))
            members.append(world.startGroup(name, .join(code: code)))
        }
        #expect(world.run(until: { members.allSatisfy { $0.connectedMembers.count == 7 } }, limit: .seconds(120)),
                "seed \(seed): \(members.map { "\($0.name) \($0.connectedMembers.count)" })")
        for member in members {
            for n in 1...3 { member.type("\(member.name) line \(n)") }
        }
        world.run(for: .seconds(30))
        for receiver in members {
            for sender in members where sender !== receiver {
                #expect(receiver.groupMessages.filter { $0.name == sender.name }.map(\.text) == (1...3).map { "\(sender.name) line \($0)" },
                        "seed \(seed): \(receiver.name) from \(sender.name)")
            }
        }
    }

    /// A member crashes; the others type while it is gone; it comes back
    /// (same device, same seat, new connections proven by the code again)
    /// and gets each of their lines exactly once, in each sender's order.
    @Test func aCrashedMemberBackGetsWhatEachOtherSentMeanwhileOnceInOrder() throws {
        let world = try World()
        let members = try Self.room(world, ["alice", "bob", "carol", "dave"])
        let (alice, bob, carol, dave) = (members[0], members[1], members[2], members[3])
        alice.type("before")
        world.run(for: .seconds(1))
        let entry = try #require(carol.group.groupEntry)
        world.crash(carol)
        alice.type("a1")
        bob.type("b1")
        alice.type("a2")
        dave.type("d1")
        world.run(for: .seconds(8))
        let back = world.startGroup("carol", .rejoin(entry))
        #expect(world.run(until: { back.connectedMembers.count == 3 }, limit: .seconds(60)), "\(back.events)")
        world.run(for: .seconds(5))
        #expect(back.groupMessages.filter { $0.name == "alice" }.map(\.text) == ["a1", "a2"], "\(back.groupMessages)")
        #expect(back.groupMessages.filter { $0.name == "bob" }.map(\.text) == ["b1"])
        #expect(back.groupMessages.filter { $0.name == "dave" }.map(\.text) == ["d1"])
        back.type("c back")
        world.run(for: .seconds(2))
        for other in [alice, bob, dave] {
            #expect(other.groupMessages.filter { $0.name == "carol" }.map(\.text) == ["c back"], "\(other.name)")
        }
    }

    /// `/send` to the group: one transfer per member, each answered by that
    /// member alone. Bob (accepting everything) gets the file whole while
    /// carol never answers; dave declines, and only his transfer ends.
    @Test func aFileOfferedToTheGroupIsOneTransferPerMemberAndNobodyWaitsForAnother() throws {
        let world = try World()
        let sinks = ["bob": MemorySink(), "carol": MemorySink(), "dave": MemorySink()]
        func files(_ name: String, autoAccept: Bool) -> () -> FileTransfers {
            {
                let files = FileTransfers { _ in sinks[name] ?? MemorySink() }
                files.readsAhead = false   // the memory "disk" answers at once, on the world's clock
                files.autoAccept = autoAccept
                return files
            }
        }
        let alice = world.startGroup("alice", .create(max: 4), files: files("alice", autoAccept: false))
        #expect(world.run(until: { alice.code != nil }))
        let code = try #require(alice.code)
        let bob = world.startGroup("bob", .join(code: code), files: files("bob", autoAccept: true))
        let carol = world.startGroup("carol", .join(code: code), files: files("carol", autoAccept: false))
        let dave = world.startGroup("dave", .join(code: code), files: files("dave", autoAccept: false))
        let members = [alice, bob, carol, dave]
        #expect(world.run(until: { members.allSatisfy { $0.connectedMembers.count == 3 } }))
        world.run(for: .seconds(1))
        let bytes = pattern(2 << 20)
        alice.group.offer({ MemorySource(file: "doc.bin", bytes: bytes) }, to: nil, now: world.now)
        alice.process()
        #expect(world.run(until: { dave.group.fileTransfers.contains { !$0.pendingOffers.isEmpty } }, limit: .seconds(10)))
        let offered = try #require(dave.group.fileTransfers.flatMap(\.pendingOffers).first)
        #expect(dave.group.memberName(transfer: offered) == "alice")
        dave.group.handleTransfer(.decline(id: offered, reason: "no thanks"), now: world.now)
        dave.process()
        #expect(world.run(until: { alice.transfers.contains { if case .finished = $0 { true } else { false } } }, limit: .seconds(60)),
                "\(alice.transfers)")
        #expect(sinks["bob"]?.finished["doc.bin"] == bytes)
        #expect(sinks["carol"]?.finished["doc.bin"] == nil && sinks["dave"]?.finished["doc.bin"] == nil)
        // Alice: three transfers, one per member, numbered by member; bob's done, dave's declined, carol's waiting.
        let declined = alice.transfers.compactMap { if case .declined(let id, let reason) = $0 { (id, reason) } else { nil } }
        #expect(declined.count == 1 && declined.first?.1 == "no thanks" && alice.group.memberName(transfer: declined[0].0) == "dave")
        let done = alice.transfers.compactMap { if case .finished(let id, .sending, _, _, _, _) = $0 { id } else { nil } }
        #expect(done.count == 1 && alice.group.memberName(transfer: done[0]) == "bob")
        #expect(carol.group.fileTransfers.flatMap(\.pendingOffers).count == 1)
    }

    /// A member that crashed and never comes back is waited for
    /// `awayGrace`, then dropped: the others see it leave, told what it
    /// never got, and go on (nothing of theirs waits for it any more).
    @Test func aMemberAwayLongerThanTheGraceIsDroppedAndNothingWaitsForIt() throws {
        let world = try World()
        let members = try Self.room(world, ["alice", "bob", "carol"])
        let (alice, bob, carol) = (members[0], members[1], members[2])
        world.crash(carol)
        alice.type("carol will never see this")
        world.run(for: .seconds(5))
        #expect(alice.events.contains { if case .member(_, "carol", .peerAway) = $0 { true } else { false } }, "\(alice.events)")
        #expect(alice.group.undeliveredMessages == 1)
        world.run(for: GroupSession.awayGrace)
        #expect(alice.events.contains { if case .member(_, "carol", .peerLeft) = $0 { true } else { false } }, "\(alice.events)")
        #expect(alice.events.contains { if case .member(_, "carol", .undelivered(1)) = $0 { true } else { false } }, "\(alice.events)")
        #expect(alice.group.undeliveredMessages == 0)
        alice.endOfInput()
        bob.endOfInput()
        #expect(world.run(until: { alice.status != nil && bob.status != nil }, limit: .seconds(30)))
        #expect(alice.status == 1 && bob.status == 0, "alice's exit status says a line never reached carol")
    }

    /// A member who knows only the six digits is proven to nobody: with no
    /// one to accept it, every pair with it ends; it sees nothing and
    /// nothing it sends is shown, while the proven members chat on.
    @Test func aMemberWithOnlyTheDigitsGetsNothingAndIsShownNothing() throws {
        let world = try World()
        let members = try Self.room(world, ["alice", "bob"])
        let (alice, bob) = (members[0], members[1])
        let code = try #require(alice.code)
        let mallory = world.startGroup("mallory", .join(code: String(code.prefix(6))))
        world.run(for: .seconds(15))
        alice.type("for bob only")
        mallory.type("listen to me")
        world.run(for: .seconds(3))
        #expect(bob.groupMessages == [.init("alice", "for bob only")])
        #expect(mallory.groupMessages.isEmpty)
        #expect(!alice.groupMessages.contains { $0.text == "listen to me" })
        #expect(!bob.groupMessages.contains { $0.text == "listen to me" })
        #expect(mallory.events.contains { if case .member(_, _, .error(.peerUnproven)) = $0 { true } else { false } },
                "\(mallory.events)")
    }

    /// A server in the middle of one member's connections (its own
    /// certificate in place of carol's on both ends of each): those pairs
    /// fail the PAKE, and nothing crosses them; alice and bob, whose
    /// connection it left alone, chat on.
    @Test func aServerSwappingOneMembersFingerprintFailsOnlyThatMembersPairs() throws {
        let world = try World()
        world.interceptor = "mallory"
        world.interceptedMembers = ["carol"]
        let alice = world.startGroup("alice", .create(max: 3))
        #expect(world.run(until: { alice.code != nil }))
        let code = try #require(alice.code)
        let bob = world.startGroup("bob", .join(code: code))
        let carol = world.startGroup("carol", .join(code: code))
        #expect(world.run(until: { alice.connectedMembers.count == 1 && bob.connectedMembers.count == 1 }))
        world.run(for: .seconds(15))
        func failedPAKE(_ client: Client) -> Int {
            client.events.filter { if case .member(_, _, .error(.pakeFailed)) = $0 { true } else { false } }.count
        }
        #expect(failedPAKE(carol) == 2, "\(carol.events)")
        #expect(failedPAKE(alice) == 1 && failedPAKE(bob) == 1)
        alice.type("to the group")
        carol.type("from carol")
        world.run(for: .seconds(2))
        #expect(bob.groupMessages == [.init("alice", "to the group")])
        #expect(carol.groupMessages.isEmpty)
        #expect(!alice.groupMessages.contains { $0.text == "from carol" })
    }

    /// `create --group` on a server that made a two-person room anyway
    /// (it ignored the request, as Inviso does) fails with one sentence
    /// instead of printing a code for a room that cannot hold the group.
    @Test func aServerWithoutGroupRoomsIsOneSentenceNotACode() throws {
        let world = try World()
        world.groupRooms = false
        let alice = world.startGroup("alice", .create(max: 4))
        #expect(world.run(until: { alice.status != nil }))
        #expect(alice.status == 1 && alice.code == nil)
        #expect(alice.events.contains(.error(.noGroupRooms)), "\(alice.events)")
    }

    /// People at terminals: a member with only the digits is unproven to the
    /// creator (`member_unproven`, nothing crosses) until both compared their
    /// safety words and said so (`/verify ok NAME`), then they chat; a member
    /// who typed the whole code never falls back to an unproven pair (as a
    /// two-person joiner): its pair with the digits-only member fails.
    @Test func anUnprovenMemberChatsOnlyWithThoseWhoComparedTheWordsWithIt() throws {
        let world = try World()
        let alice = world.startGroup("alice", .create(max: 3), unproven: .ask)
        #expect(world.run(until: { alice.code != nil }))
        let code = try #require(alice.code)
        let bob = world.startGroup("bob", .join(code: code), unproven: .ask)
        let carol = world.startGroup("carol", .join(code: String(code.prefix(6))), unproven: .ask)
        world.run(for: .seconds(5))
        func unproven(_ client: Client) -> Int {
            client.events.filter { if case .member(_, _, .unproven) = $0 { true } else { false } }.count
        }
        #expect(unproven(alice) == 1 && unproven(carol) >= 1, "\(alice.events)\n\(carol.events)")
        #expect(bob.events.contains { if case .member(_, _, .error(.pakeFailed)) = $0 { true } else { false } }, "\(bob.events)")
        carol.type("before anyone looked")
        world.run(for: .seconds(1))
        #expect(alice.groupMessages.isEmpty && bob.groupMessages.isEmpty)
        // Alice and carol compare their words; bob does not.
        let carolID = try #require(alice.group.member(named: "carol") ?? alice.group.who.first { $0.name != "bob" }?.id)
        let aliceID = try #require(carol.group.who.first { alice.group.safetyWords(of: carolID) == carol.group.safetyWords(of: $0.id) }?.id)
        #expect(alice.group.verifiedByWords(member: carolID, now: world.now))
        #expect(carol.group.verifiedByWords(member: aliceID, now: world.now))
        alice.process()
        carol.process()
        world.run(for: .seconds(2))
        #expect(alice.groupMessages.map(\.text) == ["before anyone looked"], "\(alice.events)")
        #expect(bob.groupMessages.isEmpty)
        alice.type("hi carol")
        world.run(for: .seconds(2))
        #expect(carol.groupMessages.map(\.text) == ["hi carol"])
    }

    /// `/quit`: the others see the member leave within a second, and the room goes on.
    @Test func aMemberWhoQuitsIsGoneForTheOthersWithinASecond() throws {
        let world = try World()
        let members = try Self.room(world, ["alice", "bob", "carol"])
        let (alice, bob, carol) = (members[0], members[1], members[2])
        let quitAt = world.now
        alice.quit()
        #expect(world.run(until: { bob.connectedMembers.count == 1 && carol.connectedMembers.count == 1 }, limit: .seconds(1)))
        #expect(world.now - quitAt <= .seconds(1))
        #expect(world.run(until: { alice.status != nil }, limit: .seconds(5)))
        #expect(alice.status == 0)
        bob.type("still here")
        world.run(for: .seconds(1))
        #expect(carol.groupMessages == [.init("bob", "still here")])
    }
}

extension Client {
    struct Line: Equatable, CustomStringConvertible {
        var name: String
        var text: String
        init(_ name: String, _ text: String) { self.name = name; self.text = text }
        var description: String { "\(name): \(text)" }
    }

    /// Lines shown from other members of a group, with the sender's name.
    var groupMessages: [Line] {
        events.compactMap {
            if case .member(_, let name, .message(let text)) = $0 { return Line(name, text) }
            return nil
        }
    }

    /// Members whose pair reported `connected`, and not since left.
    var connectedMembers: Set<String> {
        var connected: Set<String> = []
        for event in events {
            guard case .member(let id, _, let inner) = event else { continue }
            switch inner {
            case .connected: connected.insert(id)
            case .peerLeft: connected.remove(id)
            default: break
            }
        }
        return connected
    }
}

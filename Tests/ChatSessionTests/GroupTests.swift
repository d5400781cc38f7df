@testable import ChatClient
import Testing
import TestSupport

/// Group rooms on the chat core (issue 31): members are `GroupSession`s, one
/// pairwise `ChatSession` per other member, against the real server cores
/// and the shared network emulator, on the manual clock.
@Suite(.computeThread) struct GroupTests {
    /// `create --group`, then each of `names` joins with the whole code; all connected pairwise.
    static func room(_ world: World, _ names: [String], max: Int = 8) throws -> [Client] {
        let creator = world.startGroup(names[0], .create(expiresIn: 600, max: max))
        #expect(world.run(until: { creator.code != nil }))
        let code = try #require(creator.code)
        var members = [creator]
        for name in names.dropFirst() { members.append(world.startGroup(name, .join(code: code))) }
        let everyoneConnected = world.run(until: { members.allSatisfy { $0.connectedMembers.count == names.count - 1 } })
        #expect(everyoneConnected, "\(members.map { "\($0.name): \($0.events)" }.joined(separator: "\n"))")
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

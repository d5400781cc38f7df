@testable import ChatClient
import Testing
import TestSupport

/// Issue 31, item 7: a member flooding the group is limited per pair. A
/// member that stops taking lines (crashed, frozen, on a slow path) holds
/// at most `GroupSession.memberBacklog` of the sender's text; beyond it the
/// sender's input goes on for everyone else, and the member is told exactly
/// how many lines it missed, and where, when it is back.
@Suite(.computeThread) struct GroupFloodTests {
    @Test func aMemberFarBehindMissesLinesAndIsToldWhileTheOthersGetEveryLine() throws {
        let world = try World()
        let members = try GroupTests.room(world, ["alice", "bob", "carol"])
        let (alice, bob, carol) = (members[0], members[1], members[2])
        let entry = try #require(carol.group.groupEntry)
        world.crash(carol)

        // About 5.6 MB for each member: more than carol's share may hold.
        let filler = String(repeating: "x", count: 8_000)
        var typed: [String] = []
        var inputWaited = false
        for i in 0..<700 {
            if !alice.group.wantsInput {
                inputWaited = true
                #expect(world.run(until: { alice.group.wantsInput }, limit: .seconds(30)))
            }
            typed.append("\(i) \(filler)")
            alice.type(typed[i])
            if i % 25 == 24 { world.run(for: .milliseconds(100)) }
        }
        #expect(world.run(until: { bob.groupMessages.count == typed.count }, limit: .seconds(60)))
        let bobGotAll = bob.groupMessages.map(\.text) == typed   // compared as a Bool: 5 MB of lines are no message
        #expect(bobGotAll, "bob got \(bob.groupMessages.count) of \(typed.count) lines, or not in order")
        #expect(!inputWaited, "the input never waited for the member that was behind")
        let behind = alice.events.filter { if case .member(_, "carol", .peerBehind) = $0 { true } else { false } }
        #expect(behind.count == 1, "\(behind)")
        let kept = alice.group.undeliveredMessages
        #expect(kept > 0 && kept < typed.count)
        #expect(kept * (filler.utf8.count + 4) <= GroupSession.memberBacklog)
        let missed = typed.count - kept

        // Carol is back: what was kept for her arrives, then the gap, then what comes after.
        let back = world.startGroup("carol", .rejoin(entry))
        #expect(world.run(until: { back.connectedMembers.count == 2 }, limit: .seconds(60)), "\(back.events)")
        #expect(world.run(until: { back.fromAlice.count >= kept + 1 }, limit: .seconds(60)))
        alice.type("after the gap")
        #expect(world.run(until: { back.fromAlice.last == .line("after the gap") }, limit: .seconds(30)))
        let expected: [Inbox.Item] = typed.prefix(kept).map { .line($0) } + [.gap(lines: missed), .line("after the gap")]
        let shown = back.fromAlice
        #expect(shown == expected, "carol was shown \(shown.count) items, expected \(expected.count); gaps: \(shown.filter { if case .gap = $0 { true } else { false } })")
        #expect(alice.events.contains { if case .member(_, "carol", .peerCaughtUp(missed)) = $0 { true } else { false } })
        #expect(bob.groupMessages.last?.text == "after the gap")

        // A script's exit status says that some lines never reached someone.
        for member in [alice, bob, back] { member.endOfInput() }
        #expect(world.run(until: { [alice, bob, back].allSatisfy { $0.status != nil } }, limit: .seconds(60)))
        #expect(alice.status == 1 && bob.status == 0 && back.status == 0)
    }
}

extension Client {
    /// What alice's pair showed this member: her lines and the gaps she announced.
    var fromAlice: [Inbox.Item] {
        events.compactMap {
            switch $0 {
            case .member(_, "alice", .message(let text)): return .line(text)
            case .member(_, "alice", .gap(let lines)): return .gap(lines: lines)
            default: return nil
            }
        }
    }
}

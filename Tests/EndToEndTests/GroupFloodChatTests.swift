import Foundation
import TestSupport
import Testing

/// Issue 31, item 7, through the real binary: a script floods a group of
/// three while one member is frozen (SIGSTOP: a laptop lid, a stuck app).
/// The frozen member holds at most its 4 MiB share of the flood; the
/// script's input never waits for it and the third member gets every line.
/// Thawed, the frozen member gets what was kept, then one `gap` event
/// saying how many lines it missed, then what follows.
@Suite(.ownThread) struct GroupFloodChatTests {
    @Test func aFrozenMemberMissesWhatItCannotHoldWhileTheOthersGetEveryLine() throws {
        let server = try ServerProcess()
        let alice = try ChildProcess.chatcli(["create", "--group", "--max", "3", "--server", server.url, "--json", "--as", "alice", "--no-store"],
                                             name: "alice")
        let code = try #require(alice.waitForEvent("code")?["code"] as? String, "\(alice.transcript)")
        let bob = try ChildProcess.chatcli(["join", code, "--server", server.url, "--json", "--as", "bob", "--no-store"], name: "bob")
        let carol = try ChildProcess.chatcli(["join", code, "--server", server.url, "--json", "--as", "carol", "--no-store"], name: "carol")
        for member in [alice, bob, carol] {
            #expect(member.waitForEvents("connected", count: 2, timeout: 40), "\(member.transcript)")
        }
        // The names come on `ctl` after the connections: wait until alice knows carol's.
        alice.write("names first\n")
        #expect(GroupChatTests.messages(carol, count: 1).first?.name == "alice", "\(carol.transcript)")

        carol.signal(SIGSTOP)
        defer { carol.signal(SIGCONT) }
        let filler = String(repeating: "x", count: 8_000)
        let lines = (0..<700).map { "\($0) \(filler)" }   // about 5.6 MB: more than carol's 4 MiB share
        let written = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            alice.write(lines.joined(separator: "\n") + "\n")
            written.signal()
        }
        #expect(written.wait(timeout: .now() + 120) == .success, "alice stopped reading her input while carol was frozen")
        let bobGot = GroupChatTests.messages(bob, count: 1 + lines.count).dropFirst().map(\.text)
        let bobGotAll = bobGot == lines   // a Bool: 5 MB of lines are no failure message
        #expect(bobGotAll, "bob got \(bobGot.count) of \(lines.count) lines, or not in order")
        let behind = alice.waitForEvent("member_behind", timeout: 30)
        #expect(behind?["name"] as? String == "carol", "\(alice.transcript.suffix(3000))")

        carol.signal(SIGCONT)
        let caughtUp = try #require(alice.waitForEvent("member_caught_up", timeout: 90), "\(alice.transcript.suffix(3000))")
        let missed = try #require(caughtUp["missed"] as? Int)
        #expect(missed > 0 && missed < lines.count)
        alice.write("after the gap\n")
        var shown: [String] = []
        _ = carol.waitForLine(timeout: 90) { line in
            guard let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], obj["name"] as? String == "alice" else { return false }
            switch obj["event"] as? String {
            case "message": shown.append(obj["text"] as? String ?? "")
            case "gap": shown.append("gap \(obj["lines"] as? Int ?? -1)")
            default: return false
            }
            return shown.last == "after the gap"
        }
        let expected = ["names first"] + lines.prefix(lines.count - missed) + ["gap \(missed)", "after the gap"]
        let carolSawItRight = shown == expected
        #expect(carolSawItRight, "carol was shown \(shown.count) items, expected \(expected.count); gaps: \(shown.filter { $0.hasPrefix("gap") })")

        for member in [alice, bob, carol] { member.closeInput() }
        #expect(alice.waitForExit(timeout: 30) == 1, "alice's exit status says some lines never reached carol")
        for member in [bob, carol] { #expect(member.waitForExit(timeout: 30) == 0, "\(member.transcript.suffix(2000))") }
    }
}

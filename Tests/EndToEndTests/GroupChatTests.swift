import Foundation
import TestSupport
import Testing

/// Group rooms through the real binary (issue 31): `create --group` and
/// plain `join CODE`, four members on loopback with `--json`.
@Suite(.ownThread) struct GroupChatTests {
    static func messages(_ member: ChildProcess, count: Int) -> [(name: String, text: String)] {
        var found: [(String, String)] = []
        _ = member.waitForLine(timeout: 30) { line in
            guard line.hasPrefix(#"{"event":"message""#),
                  let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let name = obj["name"] as? String, let text = obj["text"] as? String else { return false }
            found.append((name, text))
            return found.count >= count
        }
        return found
    }

    @Test func fourMembersChatEachSeesTheOthersByNameAndOneLeaving() throws {
        let server = try ServerProcess()
        let alice = try ChildProcess.chatcli(["create", "--group", "--max", "4", "--server", server.url, "--json", "--as", "alice", "--no-store"],
                                             name: "alice")
        let code = try #require(alice.waitForEvent("code")?["code"] as? String, "\(alice.transcript)")
        let names = ["bob", "carol", "dave"]
        let joiners = try names.map {
            try ChildProcess.chatcli(["join", code, "--server", server.url, "--json", "--as", $0, "--no-store"], name: $0)
        }
        let everyone = [alice] + joiners
        for member in everyone {
            #expect(member.waitForEvents("connected", count: 3, timeout: 40), "\(member.transcript)")
        }
        // A fifth is refused: the room holds four.
        let eve = try ChildProcess.chatcli(["join", code, "--server", server.url, "--json", "--no-store"], name: "eve")
        #expect(eve.waitForExit(timeout: 30) == 1, "\(eve.transcript)")
        #expect(eve.stdout.contains { $0.contains(#""error":"room_full""#) }, "\(eve.transcript)")

        for (member, name) in zip(everyone, ["alice"] + names) { member.write("\(name) says hi\n") }
        for (member, name) in zip(everyone, ["alice"] + names) {
            let got = Self.messages(member, count: 3)
            let expected = Set((["alice"] + names).filter { $0 != name }.map { "\($0)|\($0) says hi" })
            #expect(Set(got.map { "\($0.name)|\($0.text)" }) == expected, "\(member.transcript)")
        }

        // dave leaves at the end of its input: the others are told, by name, and go on.
        joiners[2].closeInput()
        #expect(joiners[2].waitForExit(timeout: 20) == 0, "\(joiners[2].transcript)")
        for member in everyone.prefix(3) {
            let left = member.waitForEvent("member_left", timeout: 10)
            #expect(left?["name"] as? String == "dave", "\(member.transcript)")
        }
        alice.write("after dave\n")
        for member in joiners.prefix(2) {
            #expect(Self.messages(member, count: 4).last.map { "\($0.name)|\($0.text)" } == "alice|after dave", "\(member.transcript)")
        }
        for member in everyone.prefix(3) { member.closeInput() }
        for member in everyone.prefix(3) { #expect(member.waitForExit(timeout: 30) == 0, "\(member.transcript)") }
    }

    /// The issue's run, end to end: four members, one at a terminal (tmux)
    /// and three scripts. Lines by name above a prompt that counts who is
    /// here, `/who`, lines both ways, `/send` to all (one script takes it, two
    /// decline) and `/send @NAME`; then a script is killed (SIGKILL), the
    /// others go on typing, and `chatcli resume` brings it back with what each
    /// typed meanwhile, once and in order; `/quit` is seen by the rest.
    @Test(.enabled(if: TmuxPane.available, "tmux is not installed (Tools/test installs it)"))
    func fourMembersOneAtATerminalChatSendFilesAndOneComesBackAfterACrash() throws {
        let server = try ServerProcess()
        let alice = try InteractiveTests.person("alice", ["create", "--group", "--as", "alice", "--server", server.url, "--no-store"],
                                                acceptUnproven: false)
        defer { alice.kill() }
        let shown = alice.waitFor { $0.range(of: #"join \d{6}-[a-z]+-[a-z]+"#, options: .regularExpression) != nil }
        let code = try #require(shown.screen.range(of: #"\d{6}-[a-z]+-[a-z]+"#, options: .regularExpression).map { String(shown.screen[$0]) },
                                "\(shown.screen)")
        let inbox = Harness.temporaryDirectory()
        let store = ["CHATCLI_PASSPHRASE": "group test passphrase", "XDG_DATA_HOME": Harness.temporaryDirectory()]
        let bob = try ChildProcess.chatcli(["join", code, "--server", server.url, "--json", "--as", "bob", "--no-store", "--auto-accept", inbox],
                                           name: "bob")
        let carol = try ChildProcess.chatcli(["join", code, "--server", server.url, "--json", "--as", "carol", "--no-store"], name: "carol")
        let dave = try ChildProcess.chatcli(["join", code, "--server", server.url, "--json", "--as", "dave", "--name", "team"],
                                            name: "dave", environment: store)
        #expect(alice.waitFor("[group · 4 here · /who] >", timeout: 60).ok, "\(alice.screen())")
        for script in [bob, carol, dave] { #expect(script.waitForEvents("connected", count: 3, timeout: 60), "\(script.transcript)") }
        bob.write("hello from bob\n")
        #expect(alice.waitFor("bob: hello from bob").ok, "\(alice.screen())")
        alice.enter("/who")
        let who = alice.waitFor { $0.contains("bob: direct") && $0.contains("carol: direct") && $0.contains("dave: direct") }
        #expect(who.ok && who.screen.contains("verified") && !who.screen.contains("not verified"), "\(who.screen)")
        alice.enter("hi all")
        for script in [bob, carol, dave] {
            #expect(Self.messages(script, count: script === bob ? 1 : 2).contains { $0.name == "alice" && $0.text == "hi all" },
                    "\(script.transcript)")
        }
        // `/send` to the group: one transfer per member; bob's script takes it, carol's and dave's decline (no --auto-accept).
        let report = Harness.temporaryDirectory() + "/report.txt"
        try Data((0..<20_000).map { "line \($0)\n" }.joined().utf8).write(to: URL(fileURLWithPath: report))
        alice.enter("/send " + report)
        let sent = alice.waitFor { $0.contains("to bob: verified") && $0.contains("carol declined") && $0.contains("dave declined") }
        #expect(sent.ok, "\(sent.screen)")
        #expect(FileManager.default.contentsEqual(atPath: inbox + "/report.txt", andPath: report))
        let offer = bob.waitForEvent("transfer_done", timeout: 20)
        #expect(offer?["member_name"] as? String == "alice", "\(bob.transcript)")
        // `/send @NAME PATH`: to bob only; carol is offered nothing more.
        let notes = Harness.temporaryDirectory() + "/notes.txt"
        try Data("for bob\n".utf8).write(to: URL(fileURLWithPath: notes))
        alice.enter("/send @bob " + notes)
        let twice = alice.waitFor { $0.components(separatedBy: "to bob: verified").count == 3 }
        #expect(twice.ok, "\(twice.screen)")
        #expect(bob.waitForEvents("transfer_done", count: 2, timeout: 20), "\(bob.transcript)")
        #expect(FileManager.default.fileExists(atPath: inbox + "/notes.txt"))
        #expect(carol.stdout.filter { $0.hasPrefix(#"{"event":"offer""#) }.count == 1, "\(carol.transcript)")

        // dave is killed; the others go on typing; `chatcli resume` brings him back with all of it.
        dave.signal(SIGKILL)
        _ = dave.waitForExit()
        alice.enter("a1")
        bob.write("b1\n")
        alice.enter("a2")
        #expect(bob.waitForEvent("member_away", timeout: 20)?["name"] as? String == "dave", "\(bob.transcript)")
        #expect(alice.waitFor("dave lost its connection").ok, "\(alice.screen())")
        let back = try ChildProcess.chatcli(["resume", "team", "--json", "--as", "dave"], name: "dave again", environment: store)
        let got = Self.messages(back, count: 3)
        #expect(got.filter { $0.name == "alice" }.map(\.text) == ["a1", "a2"], "\(back.transcript)")
        #expect(got.filter { $0.name == "bob" }.map(\.text) == ["b1"], "\(back.transcript)")
        back.write("dave is back\n")
        #expect(alice.waitFor("dave: dave is back").ok, "\(alice.screen())")
        for script in [bob, carol] {
            #expect(script.waitForLine(timeout: 30) { $0.contains(#""name":"dave","text":"dave is back""#) } != nil, "\(script.transcript)")
        }
        alice.enter("/quit")
        #expect(alice.waitForExit(timeout: 20) == 0)
        for script in [bob, carol, back] {
            #expect(script.waitForEvent("member_left", timeout: 10)?["name"] as? String == "alice", "\(script.transcript)")
            script.closeInput()
            #expect(script.waitForExit(timeout: 20) == 0, "\(script.transcript)")
        }
    }

    @Test func aGroupSizeOutOfRangeIsOneSentence() throws {
        let create = try ChildProcess.chatcli(["create", "--group", "--max", "9", "--server", "http://127.0.0.1:9"], name: "create")
        #expect(create.waitForExit(timeout: 10) == 2)
        #expect(create.stderr.joined(separator: "\n").contains("--max takes the number of people in the group, 3 to 8, not '9'"), "\(create.transcript)")
        let join = try ChildProcess.chatcli(["join", "123456", "--group", "--server", "http://127.0.0.1:9"], name: "join")
        #expect(join.waitForExit(timeout: 10) == 2, "\(join.transcript)")
    }
}

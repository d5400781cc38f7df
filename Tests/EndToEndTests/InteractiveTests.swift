import Foundation
import TestSupport
import Testing

/// The interactive chat in real terminals (tmux): two people chatting, a
/// message arriving mid-line, the slash commands, the ways out, and a
/// hostile peer's escape sequences. Skipped visibly without tmux
/// (`Tools/test` installs it).
@Suite(.ownThread, .serialized, .enabled(if: TmuxPane.available, "tmux is not installed (Tools/test installs it)"))
struct InteractiveTests {
    /// A person at a terminal: no store prompt can block (passphrase from the
    /// environment, an empty data directory), colours as the test asks.
    static func person(_ name: String, _ arguments: [String], colors: Bool = false, acceptUnproven: Bool = true) throws -> TmuxPane {
        var environment = ["CHATCLI_PASSPHRASE": "interactive test passphrase", "XDG_DATA_HOME": Harness.temporaryDirectory(),
                           "LANG": "C.UTF-8", "TERM": "screen"]
        // The runner may have NO_COLOR set; empty counts as unset (no-color.org).
        environment["NO_COLOR"] = colors ? "" : "1"
        // These chats pair by the six digits and are about the chat, not trust: the
        // unproven peer is accepted up front (TrustGateEndToEndTests ask the person instead).
        let accepting = acceptUnproven && ["create", "join", "resume"].contains(arguments.first ?? "") ? ["--accept-unproven"] : []
        return try TmuxPane(name: name, command: [Harness.chatcliPath] + arguments + accepting, environment: environment)
    }

    /// Alice creates a chat; the code is read off her screen.
    /// A sparse file of `size` bytes named `name` in a new folder (made at
    /// once; its bytes are zeros), and alice and bob connected, bob accepting
    /// every file into the folder's `in`. The caller kills both panes.
    static func fileSenderAndReceiver(_ server: ServerProcess, sparse name: String, size: UInt64) throws
        -> (alice: TmuxPane, bob: TmuxPane, dir: String) {
        let dir = Harness.temporaryDirectory()
        _ = FileManager.default.createFile(atPath: dir + "/" + name, contents: nil)
        try FileHandle(forWritingAtPath: dir + "/" + name).map { try $0.truncate(atOffset: size); try $0.close() }
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        let (alice, code) = try create(server)
        let bob = try person("bob", ["join", code, "--server", server.url, "--auto-accept", dir + "/in"])
        for pane in [alice, bob] { #expect(pane.waitFor("[connected · direct] >", timeout: 30).ok, "\(pane.screen())") }
        return (alice, bob, dir)
    }

    static func create(_ server: ServerProcess, colors: Bool = false) throws -> (alice: TmuxPane, code: String) {
        let alice = try person("alice", ["create", "--server", server.url], colors: colors)
        let shown = alice.waitFor { $0.range(of: #"join \d{6}"#, options: .regularExpression) != nil }
        let code = try #require(shown.screen.range(of: #"\d{6}"#, options: .regularExpression).map { String(shown.screen[$0]) }, "\(shown.screen)")
        return (alice, code)
    }

    /// Alice creates, Bob joins with the code on Alice's screen; both connected.
    static func pair(_ server: ServerProcess) throws -> (alice: TmuxPane, bob: TmuxPane) {
        let (alice, code) = try create(server)
        let bob = try person("bob", ["join", code, "--server", server.url])
        for pane in [alice, bob] {
            let up = pane.waitFor("[connected · direct] >", timeout: 20)
            #expect(up.ok, "\(pane.name) did not connect:\n\(up.screen)")
        }
        return (alice, bob)
    }

    @Test func twoPeopleChatAndAMessageArrivingMidLineLeavesTheTypedTextAlone() throws {
        let server = try ServerProcess()
        let (alice, bob) = try Self.pair(server)
        defer { alice.kill(); bob.kill() }

        bob.type("half typed")
        #expect(bob.waitFor { _ in bob.promptLine.hasSuffix("> half typed") }.ok)
        bob.press("Left", "Left")   // the cursor is kept too, not only the text
        alice.enter("hello bob")
        #expect(alice.waitFor("you: hello bob").ok)
        let arrived = bob.waitFor("peer: hello bob")
        #expect(arrived.ok, "\(arrived.screen)")
        #expect(bob.promptLine.hasSuffix("> half typed"), "\(bob.screen())")
        #expect(!arrived.screen.contains("half typedpeer"), "the typed text must not be mixed into the message line")

        bob.enter("XY")
        let got = alice.waitFor("peer: half typXYed")
        #expect(got.ok, "\(got.screen)")
        #expect(bob.waitFor("you: half typXYed").ok)
        // Empty again, and the count of what the peer has not acknowledged gone.
        #expect(bob.waitFor { _ in bob.promptLine.hasSuffix("[connected · direct] >") }.ok, "\(bob.promptLine)")
        #expect(!alice.screen(escapes: true).contains("\u{1B}["), "NO_COLOR: no colours at all")
    }

    @Test func statusVerifyAndNameBehave() throws {
        let server = try ServerProcess()
        let (alice, bob) = try Self.pair(server)
        defer { alice.kill(); bob.kill() }
        alice.enter("hello bob")
        #expect(bob.waitFor("peer: hello bob").ok)

        alice.enter("/status")
        let status = alice.waitFor("Room expires:")
        #expect(status.ok, "\(status.screen)")
        #expect(status.screen.contains("State: connected · direct"))
        #expect(status.screen.range(of: #"Path: direct \((host|srflx|prflx)\); local host \S+, remote \w+ \S+"#, options: .regularExpression) != nil, "\(status.screen)")
        #expect(status.screen.range(of: #"Round trip: \d+ ms"#, options: .regularExpression) != nil)
        #expect(status.screen.contains("Sent: 1 message, 9 bytes"))
        #expect(status.screen.contains("Received: 0 messages, 0 bytes"))
        #expect(status.screen.range(of: #"Session: started \d+s ago, connected for \d+s"#, options: .regularExpression) != nil)

        var words: [String] = []
        for pane in [alice, bob] {
            pane.enter("/verify")
            let shown = pane.waitFor("type /verify ok")
            #expect(shown.ok, "\(shown.screen)")
            let line = shown.screen.split(separator: "\n").last { $0.contains("-- Safety words: ") }
            words.append(line.map { String($0.split(separator: ":").last ?? "").trimmingCharacters(in: .whitespaces) } ?? "")
        }
        #expect(words[0].split(separator: " ").count == 5, "\(words)")
        #expect(words[0] == words[1])
        #expect(!bob.screen().contains("verified"))

        alice.enter("/verify ok")
        #expect(alice.waitFor("[connected · direct · verified] >").ok)
        let told = bob.waitFor("Your peer verified the safety words")
        #expect(told.ok, "\(told.screen)")

        alice.enter("/name Alice Liddell")
        #expect(bob.waitFor("Your peer is called Alice Liddell.").ok)
        alice.enter("/bogus")
        #expect(alice.waitFor("/bogus is not a command").ok)
        alice.enter("//etc/hosts is a path")
        let named = bob.waitFor("Alice Liddell: /etc/hosts is a path")
        #expect(named.ok, "\(named.screen)")
        #expect(!named.screen.contains("bogus"), "an unknown command is never sent")
    }

    @Test(arguments: ["/leave", "/quit"])
    func leavingEndsBothSidesCleanly(command: String) throws {
        let server = try ServerProcess()
        let (alice, bob) = try Self.pair(server)
        defer { alice.kill(); bob.kill() }
        bob.type("an unsent draft")
        #expect(bob.waitFor { _ in bob.promptLine.hasSuffix("> an unsent draft") }.ok)
        alice.enter(command)
        #expect(alice.waitForExit() == 0, "\(alice.screen())")
        #expect(alice.screen().contains("You left the chat."))
        let left = bob.waitFor("Your peer left the chat.")
        #expect(left.ok, "\(left.screen)")
        // What Bob was typing is still there; he leaves when he is ready.
        #expect(bob.waitFor { _ in bob.promptLine.hasSuffix("[peer left] > an unsent draft") }.ok, "\(bob.promptLine)")
        bob.press("C-u")
        Self.quitAfterThePeerLeft(bob)
    }

    /// The one left behind stays, with what they were typing, until they quit.
    static func quitAfterThePeerLeft(_ pane: TmuxPane, expecting status: Int32 = 0) {
        #expect(pane.waitFor("[peer left] >").ok, "\(pane.screen())")
        pane.enter("/quit")
        #expect(pane.waitForExit() == status, "\(pane.screen())")
    }

    @Test func ctrlCClearsTheLineTwiceLeavesAndCtrlDQuits() throws {
        let server = try ServerProcess()
        let (alice, bob) = try Self.pair(server)
        defer { alice.kill(); bob.kill() }
        alice.type("never sent")
        #expect(alice.waitFor { _ in alice.promptLine.hasSuffix("> never sent") }.ok)
        alice.press("C-c")
        #expect(alice.waitFor("Press Ctrl-C again").ok)
        #expect(alice.promptLine.hasSuffix("[connected · direct] >"), "\(alice.screen())")
        alice.press("C-c")
        #expect(alice.waitForExit() == 130, "\(alice.screen())")
        #expect(bob.waitFor("Your peer left the chat.").ok)
        #expect(!bob.screen().contains("never sent"))
        Self.quitAfterThePeerLeft(bob)

        let (carol, dave) = try Self.pair(server)
        defer { carol.kill(); dave.kill() }
        carol.press("C-d")
        #expect(carol.waitForExit() == 0, "\(carol.screen())")
        #expect(dave.waitFor("Your peer left the chat.").ok)
    }

    @Test func sigtermLeavesAndRestoresTheTerminal() throws {
        let server = try ServerProcess()
        let (alice, bob) = try Self.pair(server)
        defer { alice.kill(); bob.kill() }
        alice.type("half a line")
        #expect(alice.waitFor { _ in alice.promptLine.hasSuffix("> half a line") }.ok)
        let pid = try #require(alice.programPID)
        kill(pid, SIGTERM)
        let report = alice.exitReport()
        #expect(report?.status == 143, "\(alice.screen())")
        #expect(report?.tty == "icanon echo", "readline's raw mode is undone: \(report?.tty ?? "no report")")
        #expect(bob.waitFor("Your peer left the chat.").ok)
        bob.enter("/quit")
        #expect(bob.exitReport()?.tty == "icanon echo")
    }

    @Test func escapeSequencesFromThePeerAreNotRendered() throws {
        let server = try ServerProcess()
        let (alice, code) = try Self.create(server, colors: true)
        defer { alice.kill() }
        let script = try ChildProcess.chatcli(["join", code, "--server", server.url, "--json", "--accept-unproven"], name: "scripted")
        #expect(script.waitForEvent("connected", timeout: 20) != nil, "\(script.transcript)")
        script.write("before\n\u{1B}[2J\u{1B}[H\u{1B}[31mRED\u{1B}[0m\n\u{1B}]0;pwned\u{07}\u{1B}]2;pwned\u{1B}\\after\n")
        let after = alice.waitFor("peer: after")
        #expect(after.ok, "\(after.screen)")
        #expect(after.screen.contains("Your code:"), "the screen was not cleared")
        #expect(after.screen.contains("peer: before"))
        let painted = alice.screen(escapes: true)
        #expect(painted.contains("\u{1B}[1m"), "colours are on in this terminal, so their absence below means something")
        let red = try #require(painted.split(separator: "\n").first { $0.contains("RED") })
        let afterName = red.components(separatedBy: "peer:").last ?? ""
        #expect(!afterName.contains("31m") && !afterName.contains("38;"), "no colour from the peer: \(red.debugDescription)")
        #expect(!alice.title.contains("pwned"))
        script.closeInput()
        #expect(script.waitForExit() == 0)
        #expect(alice.waitFor("Your peer left the chat.").ok)
    }
}

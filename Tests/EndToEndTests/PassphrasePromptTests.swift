import Foundation
import TestSupport
import Testing

/// The store passphrase prompt in a real terminal (tmux): a typo gets
/// another try (three in all), Enter alone offers to chat without saving
/// (create, join) or ends with a sentence (resume, sessions), and Ctrl-C
/// exits 130 with the terminal's echo back on. Skipped visibly without tmux.
@Suite(.ownThread, .serialized, .enabled(if: TmuxPane.available, "tmux is not installed (Tools/test installs it)"))
struct PassphrasePromptTests {
    static let passphrase = "correct horse"

    /// A machine whose store exists (made by a scripted create), so the
    /// terminal is asked for the existing passphrase.
    static func homeWithStore(_ server: ServerProcess) throws -> (StoreHome, code: String) {
        let home = StoreHome()
        let p = try home.chatcli(["create", "--server", server.url, "--json"], name: "setup", passphrase: passphrase)
        let code = try #require(p.waitForEvent("code", timeout: 20)?["locator"] as? String, "\(p.transcript)")
        #expect(p.waitForEvent("waiting") != nil, "\(p.transcript)")
        p.signal(SIGINT)
        #expect(p.waitForExit() == 130, "\(p.transcript)")
        #expect(home.storeExists)
        return (home, code)
    }

    /// chatcli on a terminal with no passphrase from the environment: it
    /// prompts. (The screen has no trailing blanks: prompts are matched without theirs.)
    static func terminal(_ home: StoreHome, _ arguments: [String]) throws -> TmuxPane {
        try TmuxPane(name: "prompt", command: [Harness.chatcliPath] + arguments,
                     environment: ["XDG_DATA_HOME": home.dataHome, "LANG": "C.UTF-8", "TERM": "screen", "NO_COLOR": "1"])
    }

    @Test func twoTyposAndThenTheRightPassphraseOpenTheStore() throws {
        let server = try ServerProcess()
        let (home, code) = try Self.homeWithStore(server)
        let pane = try Self.terminal(home, ["sessions"])
        defer { pane.kill() }
        #expect(pane.waitFor("Session store passphrase:").ok, "\(pane.screen())")
        pane.enter("wrong one")
        #expect(pane.waitFor("Wrong passphrase. Session store passphrase (try 2 of 3):").ok, "\(pane.screen())")
        pane.enter("wrong two")
        #expect(pane.waitFor("(try 3 of 3):").ok, "\(pane.screen())")
        pane.enter(Self.passphrase)
        let report = pane.exitReport(timeout: 30)
        #expect(report?.status == 0, "\(pane.screen())")
        #expect(pane.screen().contains(code), "the session is listed: \(pane.screen())")
        #expect(!pane.screen().contains("wrong"), "the passphrase is never echoed: \(pane.screen())")
    }

    @Test func threeWrongPassphrasesEndWithOneSentence() throws {
        let server = try ServerProcess()
        let (home, code) = try Self.homeWithStore(server)
        let before = home.storeBytes
        let pane = try Self.terminal(home, ["resume", code])
        defer { pane.kill() }
        for attempt in 1...3 {
            #expect(pane.waitFor(attempt == 1 ? "Session store passphrase:" : "(try \(attempt) of 3):").ok, "\(pane.screen())")
            pane.enter("wrong \(attempt)")
        }
        let report = pane.exitReport(timeout: 30)
        #expect(report?.status == 1, "\(pane.screen())")
        #expect(pane.screen().contains("chatcli: wrong passphrase for the session store"), "\(pane.screen())")
        #expect(report?.tty == "icanon echo", "\(report?.tty ?? "no report")")
        #expect(home.storeBytes == before)
    }

    /// The code is on screen before anything is asked (issue 29); the chat's
    /// prompt line then asks for the store's passphrase, and Enter skips it.
    @Test func enterAloneAtTheChatsQuestionChatsWithoutSaving() throws {
        let server = try ServerProcess()
        let (home, _) = try Self.homeWithStore(server)
        let before = home.storeBytes
        let pane = try Self.terminal(home, ["create", "--server", server.url])
        defer { pane.kill() }
        let asked = pane.waitFor("Store passphrase to save this chat for 'chatcli resume' (Enter to skip):")
        #expect(asked.ok, "\(asked.screen)")
        #expect(Self.codeAbove("Store passphrase", in: asked.screen), "the code comes first: \(asked.screen)")
        pane.press("Enter")
        #expect(pane.waitFor("Not saved: this chat cannot be resumed if it is cut off.").ok, "\(pane.screen())")
        #expect(home.storeBytes == before, "nothing was saved")
    }

    /// Notices arriving while the question waits (the peer joins, the chat
    /// connects) are printed above it; the question keeps the prompt line.
    @Test func theChatsQuestionStaysInThePromptLineWhileNoticesArrive() throws {
        let server = try ServerProcess()
        let (home, _) = try Self.homeWithStore(server)
        let pane = try Self.terminal(home, ["create", "--server", server.url])
        defer { pane.kill() }
        let asked = pane.waitFor("Store passphrase to save this chat")
        #expect(asked.ok, "\(asked.screen)")
        let code = try #require(asked.screen.range(of: #"join \d{6}-[a-z]+-[a-z]+"#, options: .regularExpression).map { String(asked.screen[$0].dropFirst(5)) })
        let bob = try ChildProcess.chatcli(["join", code, "--server", server.url, "--json", "--no-store"], name: "bob")
        #expect(bob.waitForEvent("connected", timeout: 30) != nil, "\(bob.transcript)")
        #expect(pane.waitFor("Connected directly").ok, "\(pane.screen())")
        #expect(pane.promptLine.hasPrefix("Store passphrase to save this chat"), "the question is still the prompt: \(pane.screen())")
        pane.type("half")
        bob.write("hello while you type\n")
        #expect(pane.waitFor("hello while you type").ok, "\(pane.screen())")
        #expect(pane.promptLine.hasPrefix("Store passphrase to save this chat") && !pane.promptLine.contains("half"),
                "still asking, nothing echoed: \(pane.screen())")
        bob.closeInput()
    }

    @Test func aWrongPassphraseAtTheChatsQuestionIsAskedAgainAndTheRightOneSaves() throws {
        let server = try ServerProcess()
        let (home, _) = try Self.homeWithStore(server)
        let pane = try Self.terminal(home, ["create", "--server", server.url])
        defer { pane.kill() }
        #expect(pane.waitFor("Store passphrase to save this chat").ok, "\(pane.screen())")
        pane.enter("not it")
        #expect(pane.waitFor("Wrong passphrase. Store passphrase (try 2 of 3; Enter to skip):").ok, "\(pane.screen())")
        pane.enter(Self.passphrase)
        #expect(pane.waitFor("Saved as session").ok, "\(pane.screen())")
        #expect(!pane.screen().contains("not it") && !pane.screen().contains(Self.passphrase), "never echoed: \(pane.screen())")
        #expect(try home.sessions(passphrase: Self.passphrase).count == 2)
    }

    /// Whether a `chatcli join CODE` line is on screen above the first line containing `question`.
    static func codeAbove(_ question: String, in screen: String) -> Bool {
        let lines = screen.components(separatedBy: "\n")
        guard let q = lines.firstIndex(where: { $0.contains(question) }),
              let c = lines.firstIndex(where: { $0.range(of: #"join \d{6}-"#, options: .regularExpression) != nil }) else { return false }
        return c < q
    }

    @Test(arguments: [["sessions"], ["resume", "NAME"]])
    func enterAloneOnAStoreCommandEndsWithASentence(arguments: [String]) throws {
        let server = try ServerProcess()
        let (home, code) = try Self.homeWithStore(server)
        let pane = try Self.terminal(home, arguments.map { $0 == "NAME" ? code : $0 })
        defer { pane.kill() }
        #expect(pane.waitFor("Session store passphrase:").ok, "\(pane.screen())")
        pane.press("Enter")
        let report = pane.exitReport(timeout: 20)
        #expect(report?.status == 1, "\(pane.screen())")
        #expect(pane.screen().contains("chatcli: no passphrase given, so the session store stays locked"), "\(pane.screen())")
    }

    @Test(arguments: [["sessions"], ["resume", "NAME"]])
    func ctrlCAtThePromptExits130WithEchoBack(arguments: [String]) throws {
        let server = try ServerProcess()
        let (home, code) = try Self.homeWithStore(server)
        let pane = try Self.terminal(home, arguments.map { $0 == "SERVER" ? server.url : $0 == "NAME" ? code : $0 })
        defer { pane.kill() }
        #expect(pane.waitFor("Session store passphrase:").ok, "\(pane.screen())")
        pane.type("half a pass")
        pane.press("C-c")
        let report = pane.exitReport(timeout: 20)
        #expect(report?.status == 130, "\(pane.screen())")
        #expect(report?.tty == "icanon echo", "the terminal is restored: \(report?.tty ?? "no report")")
        #expect(pane.screen().contains("chatcli: interrupted at the passphrase prompt"), "\(pane.screen())")
    }

    /// A first run (no store yet): the code is shown at once, then the new
    /// passphrase is asked twice in the chat's prompt line while the chat
    /// waits, and the session is saved with it.
    @Test func aFirstRunShowsTheCodeBeforeAnyQuestionAndSavesAfterIt() throws {
        let server = try ServerProcess()
        let home = StoreHome()
        let started = Date()
        let pane = try Self.terminal(home, ["create", "--server", server.url])
        defer { pane.kill() }
        let code = pane.waitFor(timeout: 20) { $0.range(of: #"join \d{6}-"#, options: .regularExpression) != nil }
        let elapsed = Date().timeIntervalSince(started)
        #expect(code.ok, "\(code.screen)")
        #expect(!code.screen.contains("passphrase") || Self.codeAbove("passphrase", in: code.screen), "nothing asked before the code: \(code.screen)")
        print("first run: code on screen \(Int(elapsed * 1000)) ms after the terminal started")
        #expect(pane.waitFor("New passphrase to save this chat for 'chatcli resume' (Enter to skip):").ok, "\(pane.screen())")
        pane.enter(Self.passphrase)
        #expect(pane.waitFor("Type the new passphrase again:").ok, "\(pane.screen())")
        pane.enter(Self.passphrase)
        #expect(pane.waitFor("Saved as session").ok, "\(pane.screen())")
        #expect(home.storeExists)
        #expect(try home.sessions(passphrase: Self.passphrase).count == 1)
        #expect(!pane.screen().contains(Self.passphrase), "never echoed: \(pane.screen())")
    }

    /// The key is typed once per login session (a session keyring, here one
    /// `keyctl session -` per terminal): the second chat asks nothing, `chatcli
    /// lock` makes the third ask again, and another login session asks too.
    @Test func theStoreKeyIsTypedOncePerLoginSession() throws {
        let server = try ServerProcess()
        let (home, _) = try Self.homeWithStore(server)
        let chat = "\(Harness.chatcliPath) create --server \(server.url)"
        let script = "\(chat); echo SECOND; \(chat); \(Harness.chatcliPath) lock; echo THIRD; \(chat)"
        let pane = try TmuxPane(name: "keyring", command: ["keyctl", "session", "-", "/bin/bash", "-c", script],
                                environment: ["XDG_DATA_HOME": home.dataHome, "LANG": "C.UTF-8", "TERM": "screen", "NO_COLOR": "1"])
        defer { pane.kill() }
        #expect(pane.waitFor("Store passphrase to save this chat").ok, "\(pane.screen())")
        pane.enter(Self.passphrase)
        #expect(pane.waitFor("Saved as session").ok, "\(pane.screen())")
        pane.enter("/quit")
        #expect(pane.waitFor(history: true) { $0.contains("SECOND") }.ok, "\(pane.screen(history: true))")
        let second = pane.waitFor(history: true) { $0.components(separatedBy: "Waiting for your peer").count == 3 }
        #expect(second.ok, "\(second.screen)")
        #expect(!pane.promptLine.contains("passphrase"), "the second chat asks nothing: \(pane.screen())")
        pane.enter("/quit")
        #expect(pane.waitFor(history: true) { $0.contains("Locked: the next saved or resumed chat asks for the passphrase.") && $0.contains("THIRD") }.ok,
                "\(pane.screen(history: true))")
        #expect(pane.waitFor("Store passphrase to save this chat").ok, "asked again after lock: \(pane.screen())")
        pane.press("Enter")
        pane.enter("/quit")
        // Another login session (another session keyring) has no key: it asks.
        let other = try TmuxPane(name: "keyring2", command: ["keyctl", "session", "-", Harness.chatcliPath, "create", "--server", server.url],
                                 environment: ["XDG_DATA_HOME": home.dataHome, "LANG": "C.UTF-8", "TERM": "screen", "NO_COLOR": "1"])
        defer { other.kill() }
        #expect(other.waitFor("Store passphrase to save this chat").ok, "\(other.screen())")
        #expect(try home.sessions(passphrase: Self.passphrase).count == 3)
    }
}

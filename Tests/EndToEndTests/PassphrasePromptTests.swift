import Foundation
import Testing

/// The store passphrase prompt in a real terminal (tmux): a typo gets
/// another try (three in all), Enter alone offers to chat without saving
/// (create, join) or ends with a sentence (resume, sessions), and Ctrl-C
/// exits 130 with the terminal's echo back on. Skipped visibly without tmux.
@Suite(.serialized, .enabled(if: TmuxPane.available, "tmux is not installed (Tools/test installs it)"))
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

    @Test func enterAloneOnCreateOffersToChatWithoutSaving() throws {
        let server = try ServerProcess()
        let (home, _) = try Self.homeWithStore(server)
        let before = home.storeBytes
        let pane = try Self.terminal(home, ["create", "--server", server.url])
        defer { pane.kill() }
        #expect(pane.waitFor("Session store passphrase:").ok, "\(pane.screen())")
        pane.press("Enter")
        #expect(pane.waitFor("Go on without saving this session? [Y/n]").ok, "\(pane.screen())")
        pane.press("Enter")
        let shown = pane.waitFor(timeout: 20) { $0.range(of: #"join \d{6}"#, options: .regularExpression) != nil }
        #expect(shown.ok, "the chat goes on: \(shown.screen)")
        #expect(pane.waitFor("this session is not saved (no passphrase given)").ok, "\(pane.screen())")
        #expect(home.storeBytes == before, "nothing was saved")
    }

    @Test func answeringNoAsksForThePassphraseAgain() throws {
        let server = try ServerProcess()
        let (home, _) = try Self.homeWithStore(server)
        let pane = try Self.terminal(home, ["create", "--server", server.url])
        defer { pane.kill() }
        #expect(pane.waitFor("Session store passphrase:").ok, "\(pane.screen())")
        pane.press("Enter")
        #expect(pane.waitFor("[Y/n]").ok, "\(pane.screen())")
        pane.enter("n")
        #expect(pane.waitFor { $0.components(separatedBy: "Session store passphrase:").count == 3 }.ok, "asked again: \(pane.screen())")
        pane.enter(Self.passphrase)
        let shown = pane.waitFor(timeout: 30) { $0.range(of: #"join \d{6}"#, options: .regularExpression) != nil }
        #expect(shown.ok, "\(shown.screen)")
        #expect(!shown.screen.contains("not saved"), "\(shown.screen)")
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

    @Test(arguments: [["create", "--server", "SERVER"], ["sessions"], ["resume", "NAME"]])
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

    @Test func ctrlCAtTheNewStorePromptExits130() throws {
        let home = StoreHome()
        let pane = try Self.terminal(home, ["create", "--server", "http://127.0.0.1:9"])
        defer { pane.kill() }
        #expect(pane.waitFor("New session store passphrase (protects saved sessions):").ok, "\(pane.screen())")
        pane.press("C-c")
        let report = pane.exitReport(timeout: 20)
        #expect(report?.status == 130 && report?.tty == "icanon echo", "\(pane.screen())")
        #expect(!home.storeExists)
    }
}

import Foundation
import TestSupport
import Testing

/// What a scripted peer's text looks like in a real terminal (tmux): bidi
/// controls removed, a huge message folded to a few lines with `/show` for
/// the rest. Skipped visibly without tmux (`Tools/test` installs it).
@Suite(.ownThread, .serialized, .enabled(if: TmuxPane.available, "tmux is not installed (Tools/test installs it)"))
struct InteractivePeerTextTests {
    /// Alice at a terminal, the peer a `chatcli join --json` fed through stdin.
    static func aliceAndScript(_ server: ServerProcess) throws -> (alice: TmuxPane, script: ChildProcess) {
        let (alice, code) = try InteractiveTests.create(server)
        let script = try ChildProcess.chatcli(["join", code, "--server", server.url, "--json", "--accept-unproven"], name: "scripted")
        #expect(script.waitForEvent("connected", timeout: 20) != nil, "\(script.transcript)")
        #expect(alice.waitFor("[connected · direct] >", timeout: 20).ok, "\(alice.screen())")
        return (alice, script)
    }

    @Test func bidiOverridesFromThePeerAreNotShown() throws {
        let server = try ServerProcess()
        let (alice, script) = try Self.aliceAndScript(server)
        defer { alice.kill() }
        script.write("abc\u{202E}fed\nmark \u{2067}x\u{2069} \u{200F}done\n")
        let shown = alice.waitFor("peer: mark x done")
        #expect(shown.ok, "\(shown.screen)")
        #expect(shown.screen.contains("peer: abcfed"), "\(shown.screen)")
        for scalar in ["\u{202E}", "\u{2067}", "\u{2069}", "\u{200F}"] {
            #expect(!alice.screen(escapes: true).contains(scalar))
        }
        script.closeInput()
        #expect(script.waitForExit() == 0)
        #expect(alice.waitFor("Your peer left the chat.").ok)
    }

    @Test func aHugeMessageIsFoldedAndShowPrintsItAll() throws {
        let server = try ServerProcess()
        let (alice, script) = try Self.aliceAndScript(server)
        defer { alice.kill() }
        alice.enter("/show")
        #expect(alice.waitFor("Nothing is folded.").ok)

        script.write("start" + String(repeating: "x", count: 100_000) + "END\nnext\n")
        // 120 columns: 108 after `HH:MM peer: `, then 120 a line: 834 lines, 6 shown.
        let folded = alice.waitFor("peer: next")
        #expect(folded.ok, "\(folded.screen)")
        #expect(folded.screen.contains("-- … 828 more lines — /show to see all"), "\(folded.screen)")
        #expect(folded.screen.contains("peer: startxxx"))
        #expect(folded.screen.split(separator: "\n").filter { $0.contains("xxxxxxxxxx") }.count == 6, "\(folded.screen)")
        #expect(!folded.screen.contains("END"))
        #expect(folded.screen.contains("Your peer is here."), "the conversation is still on screen")

        alice.enter("/show")
        let shown = alice.waitFor("xEND")
        #expect(shown.ok, "\(shown.screen)")
        #expect(shown.screen.split(separator: "\n").filter { $0.contains("xxxxxxxxxx") }.count > 30, "the screen is full of it")
        script.closeInput()
        #expect(script.waitForExit() == 0)
        #expect(alice.waitFor("Your peer left the chat.").ok)
    }
}

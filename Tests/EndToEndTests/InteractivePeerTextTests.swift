import Foundation
import Testing

/// What a scripted peer's text looks like in a real terminal (tmux): bidi
/// controls removed, a huge message folded to a few lines with `/show` for
/// the rest. Skipped visibly without tmux (`Tools/test` installs it).
@Suite(.serialized, .enabled(if: TmuxPane.available, "tmux is not installed (Tools/test installs it)"))
struct InteractivePeerTextTests {
    /// Alice at a terminal, the peer a `chatcli join --json` fed through stdin.
    static func aliceAndScript(_ server: ServerProcess) throws -> (alice: TmuxPane, script: ChildProcess) {
        let (alice, code) = try InteractiveTests.create(server)
        let script = try ChildProcess.chatcli(["join", code, "--server", server.url, "--json"], name: "scripted")
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
}

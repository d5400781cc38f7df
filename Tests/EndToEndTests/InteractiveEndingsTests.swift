import Foundation
import TestSupport
import Testing

/// How an interactive chat ends when the peer goes first, in real terminals
/// (tmux): what the one left behind can still type, and what the prompt
/// and `/status` say about a transfer the departure cut short.
@Suite(.ownThread, .serialized, .enabled(if: TmuxPane.available, "tmux is not installed (Tools/test installs it)"))
struct InteractiveEndingsTests {
    @Test func aLineTypedAfterThePeerLeftIsClearedSoQuitStillWorks() throws {
        let server = try ServerProcess()
        let (alice, bob) = try InteractiveTests.pair(server)
        defer { alice.kill(); bob.kill() }
        alice.enter("/leave")
        #expect(alice.waitForExit() == 0, "\(alice.screen())")
        #expect(bob.waitFor("[peer left] >").ok, "\(bob.screen())")

        bob.enter("are you there?")
        let refused = bob.waitFor("Not sent: your peer left the chat")
        #expect(refused.ok, "\(refused.screen)")
        #expect(refused.screen.contains("are you there?"), "the refused text stays readable above the prompt")
        // The line is empty again: what is typed next is a fresh line, not appended to the refused text.
        #expect(bob.waitFor { _ in bob.promptLine.hasSuffix("[peer left] >") }.ok, "\(bob.promptLine)")
        bob.enter("/quit")
        #expect(bob.waitForExit() == 0, "\(bob.screen())")
    }

    @Test func aPeerLeavingMidTransferFailsItAndStatusStillTellsThePathAndTheBytes() throws {
        let server = try ServerProcess()
        // Large enough to be under way for seconds when the peer leaves.
        let (alice, bob, dir) = try InteractiveTests.fileSenderAndReceiver(server, sparse: "big.bin", size: 2_000_000_000)
        defer { alice.kill(); bob.kill(); Harness.remove(dir) }
        alice.enter("/send \(dir)/big.bin")
        let moving = bob.waitFor(timeout: 60) { _ in bob.promptLine.range(of: #"↓ #1 big\.bin \d+% "#, options: .regularExpression) != nil }
        #expect(moving.ok, "\(bob.promptLine)")
        bob.enter("/status")
        let during = bob.waitFor("Room expires:")
        #expect(during.screen.contains("Path: direct"), "connected and moving a file: \(during.screen)")
        #expect(during.screen.range(of: #"Files: sent 0 bytes, received [1-9]"#, options: .regularExpression) != nil, "\(during.screen)")
        bob.enter("/clear")
        #expect(bob.waitFor { !$0.contains("Room expires:") }.ok, "the next /status is read afresh")

        alice.enter("/leave")
        #expect(alice.waitForExit() == 0, "\(alice.screen())")
        let failed = bob.waitFor("Transfer #1 failed: your peer left the chat", timeout: 30)
        #expect(failed.ok, "\(failed.screen)")
        #expect(bob.waitFor { _ in bob.promptLine.hasSuffix("[peer left] >") }.ok, "no transfer left in the prompt: \(bob.promptLine)")

        bob.enter("/status")
        let status = bob.waitFor("Room expires:")
        #expect(status.ok, "\(status.screen)")
        #expect(!status.screen.contains("Path: none yet"), "it was connected: \(status.screen)")
        #expect(status.screen.contains("Path: none now (your peer left)"), "\(status.screen)")
        #expect(status.screen.range(of: #"Files: sent 0 bytes, received [1-9][0-9.]* [kMG]?B"#, options: .regularExpression) != nil,
                "\(status.screen)")
        bob.enter("/quit")
        #expect(bob.waitForExit() == 0, "\(bob.screen())")
    }
}

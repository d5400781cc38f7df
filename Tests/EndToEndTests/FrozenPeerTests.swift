import Foundation
import TestSupport
import Testing

/// A joiner frozen (SIGSTOP) the moment it is in the room, before it answers
/// anything, as a closed laptop lid would (the test build's
/// `CHATCLI_TEST_FREEZE_AT_PEER_JOINED`): its socket stays open, so the
/// server never says it left. The creator says within seconds that the
/// peer is not answering, with the deadline, in `--json` and in the
/// terminal, and connects once the peer wakes (SIGCONT).
@Suite(.ownThread, .serialized) struct FrozenPeerTests {
    static let freeze = ["CHATCLI_TEST_FREEZE_AT_PEER_JOINED": "1"]

    @Test func aFrozenJoinerIsAPeerNotAnsweringEventWithItsDeadline() throws {
        let server = try ServerProcess()
        let alice = try ChildProcess.chatcli(["create", "--server", server.url, "--json", "--no-store", "--accept-unproven"], name: "alice")
        let code = try #require(alice.waitForEvent("code", timeout: 20)?["code"] as? String, "\(alice.transcript)")
        let bob = try ChildProcess.chatcli(["join", code, "--server", server.url, "--json", "--no-store", "--accept-unproven"], name: "bob",
                                           environment: Self.freeze)
        defer { kill(bob.pid, SIGCONT); bob.signal(SIGKILL) }
        #expect(alice.waitForEvent("peer_joined", timeout: 20) != nil, "\(alice.transcript)")
        let silent = alice.waitForEvent("peer_not_answering", "connected", timeout: 20)
        #expect(silent?["event"] as? String == "peer_not_answering", "\(alice.transcript)")
        let wait = silent?["wait_s"] as? Int ?? 0
        #expect(wait > 60 && wait <= 120, "the deadline: \(wait) s")
        kill(bob.pid, SIGCONT)
        #expect(alice.waitForEvent("connected", timeout: 30) != nil, "woken, it connects: \(alice.transcript)")
        alice.closeInput()
        #expect(alice.waitForExit(timeout: 30) == 0, "\(alice.transcript)")
    }

    @Test(.enabled(if: TmuxPane.available, "tmux is not installed (Tools/test installs it)"))
    func aFrozenJoinerIsShownAsNotAnsweringInTheTerminal() throws {
        let server = try ServerProcess()
        let (alice, code) = try InteractiveTests.create(server)
        defer { alice.kill() }
        let bob = try ChildProcess.chatcli(["join", code, "--server", server.url, "--json", "--no-store", "--accept-unproven"], name: "bob",
                                           environment: Self.freeze)
        defer { kill(bob.pid, SIGCONT); bob.signal(SIGKILL) }
        let shown = alice.waitFor("Your peer is not answering", timeout: 20)
        #expect(shown.ok, "\(shown.screen)")
        let sentence = alice.waitFor { $0.replacingOccurrences(of: "\n", with: "").contains("then gives up") }.screen.replacingOccurrences(of: "\n", with: "")   // unwrapped
        #expect(sentence.range(of: #"waits \d+ s more \(until \d\d:\d\d:\d\d\), then gives up"#, options: .regularExpression) != nil,
                "\(sentence)")
        #expect(alice.waitFor { _ in alice.promptLine.hasSuffix("[peer not answering] >") }.ok, "\(alice.promptLine)")
        kill(bob.pid, SIGCONT)
        #expect(alice.waitFor("[connected · direct] >", timeout: 30).ok, "\(alice.screen())")
    }
}

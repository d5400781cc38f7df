import Foundation
import Testing
import TestSupport

/// A peer that ignores `a=max-message-size` cannot wedge the chat: its
/// oversized message is refused (both sides hear why) and what follows
/// is shown.
@Suite(.ownThread, .serialized) struct OversizedMessageTests {
    /// aiortc, told to ignore our limit, sends a 10 MB line between two
    /// normal ones; chatcli shows both normal ones, says why the big one is
    /// not shown, and aiortc's SCTP gets an ERROR chunk saying so. The chat
    /// then goes on the other way too.
    @Test func anOversizedMessageFromAiortcIsRefusedAndTheChatGoesOn() throws {
        let server = try ServerProcess()
        let dir = Harness.temporaryDirectory()
        let file = dir + "/send.json"
        let outgoing = ["before", String(repeating: "x", count: 10_000_000), "after"]
        try JSONSerialization.data(withJSONObject: outgoing).write(to: URL(fileURLWithPath: file))
        // aiortc runs no PAKE: the script accepts it unproven, as it must say in advance.
        let chatcli = try ChildProcess.chatcli(["create", "--server", server.url, "--json", "--accept-unproven"], name: "chatcli")
        let code = try #require(chatcli.waitForEvent("code")?["locator"] as? String, "\(chatcli.transcript)")
        let script = Harness.packageRoot + "/Tests/EndToEndTests/Python/aiortc_peer.py"
        let python = try ChildProcess(Harness.pythonPath, [script, server.url, "join", code, "--send", file, "--expect", "1",
                                                           "--ignore-max-message-size"], name: "aiortc")
        let got = chatcli.waitForMessages(count: 2, timeout: 120)
        #expect(got == ["before", "after"], "\(chatcli.transcript.suffix(2000))\n\(python.transcript.suffix(2000))")
        let refused = chatcli.waitForLine(timeout: 5) { $0.contains("\"peer_message_too_large\"") }
        let error = refused.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(error?["event"] as? String == "error")
        #expect((error?["message"] as? String)?.contains("larger than 262144 bytes") == true, "\(chatcli.transcript.suffix(2000))")
        let told = python.waitForEvent("sctp_error", timeout: 20)
        #expect(told?["cause"] as? Int == 13, "\(python.transcript.suffix(2000))")
        #expect((told?["info"] as? String)?.contains("a=max-message-size of 262144 bytes") == true)
        // The chat goes on: chatcli's reply reaches aiortc.
        chatcli.write("still here\n")
        #expect(python.waitForEvent("message", timeout: 30)?["text"] as? String == "still here", "\(python.transcript.suffix(2000))")
        #expect(python.waitForExit(timeout: 60) == 0, "\(python.transcript.suffix(2000))")
        #expect(chatcli.waitForEvent("peer_left", timeout: 20) != nil, "\(chatcli.transcript.suffix(2000))")
        chatcli.closeInput()
        #expect(chatcli.waitForExit() == 0, "\(chatcli.transcript.suffix(2000))")
    }
}

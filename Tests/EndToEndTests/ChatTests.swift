import Foundation
import Testing
import TestSupport

/// Messages through the real binary: chatcli with chatcli, and chatcli with
/// aiortc (an independent WebRTC stack) speaking the Inviso signaling.
@Suite(.ownThread, .serialized) struct ChatTests {
    static let allSizes = [100, 1_199, 1_200, 4_096, 16_384, 65_535, 65_536, 200_000, 262_144]

    /// Three short lines (multi-byte characters, quotes, a tab), then one
    /// line of each of `sizes` bytes (by default up to the 256 KiB limit);
    /// every line is distinct.
    static func messages(_ tag: String, sizes: [Int] = allSizes) -> [String] {
        var out: [String] = ["\(tag) hello", "ünïcödé ✓ 😀 \(tag)", "\(tag) \"quotes\" and \\backslashes\\ and \t tab"]
        for (index, size) in sizes.enumerated() {
            let prefix = "\(tag)\(index).\(size):"
            let room = size - prefix.utf8.count
            let tail = room % 2 == 1 ? "x" : ""
            out.append(prefix + String(repeating: "é", count: room / 2) + tail)   // exactly `size` bytes
        }
        return out
    }

    static func lines(_ messages: [String]) -> String { messages.joined(separator: "\n") + "\n" }

    /// Where `got` first differs from `expected`, each line cut to its first
    /// 40 characters (test lines start with their tag and number).
    static func difference(_ got: [String], _ expected: [String]) -> String {
        let short = { (line: String) in String(line.prefix(40)) }
        let common = min(got.count, expected.count)
        guard let i = (0..<common).first(where: { got[$0] != expected[$0] }) ?? (got.count != expected.count ? common : nil)
        else { return "the same" }
        let around = { (lines: [String]) in lines[max(0, i - 2)..<min(lines.count, i + 3)].map(short) }
        return "\(got.count) lines of \(expected.count); first difference at \(i): got \(around(got)), expected \(around(expected))"
    }

    @Test func twoChatcliPeersExchangeEverySizeBothWays() throws {
        let server = try ServerProcess()
        let alice = try ChildProcess.chatcli(["create", "--server", server.url, "--json"], name: "alice")
        let code = try #require(alice.waitForEvent("code")?["code"] as? String, "\(alice.transcript)")
        let bob = try ChildProcess.chatcli(["join", code, "--server", server.url, "--json"], name: "bob")
        let fromAlice = Self.messages("a"), fromBob = Self.messages("b")
        alice.write(Self.lines(fromAlice))
        bob.write(Self.lines(fromBob))
        let connected = try #require(alice.waitForEvent("connected", timeout: 20), "\(alice.transcript)\n\(bob.transcript)")
        let bobConnected = try #require(bob.waitForEvent("connected"), "\(bob.transcript)")
        #expect(connected["sas"] as? String == bobConnected["sas"] as? String)
        #expect(["host", "srflx", "prflx"].contains(connected["path"] as? String ?? ""))
        expectExchangeAndLeave(alice, bob, fromAlice: fromAlice, fromBob: fromBob)
    }

    /// Each side gets every message of the other, exactly and in order;
    /// Alice then ends her input and leaves, Bob sees her go, both exit 0.
    func expectExchangeAndLeave(_ alice: ChildProcess, _ bob: ChildProcess, fromAlice: [String], fromBob: [String]) {
        #expect(alice.waitForMessages(count: fromBob.count) == fromBob, "\(alice.transcript.prefix(2000))")
        #expect(bob.waitForMessages(count: fromAlice.count) == fromAlice, "\(bob.transcript.prefix(2000))")
        alice.closeInput()
        #expect(alice.waitForExit() == 0, "\(alice.transcript.suffix(2000))")
        #expect(bob.waitForEvent("peer_left") != nil)
        #expect(bob.waitForExit() == 0, "\(bob.transcript.suffix(2000))")
    }

    @Test func linesTypedBeforeTheChannelOpensAreSentInOrderAndAnOversizedLineIsRefused() throws {
        let server = try ServerProcess()
        let alice = try ChildProcess.chatcli(["create", "--server", server.url, "--json"], name: "alice")
        alice.write("one\r\ntwo\n\n" + String(repeating: "z", count: 262_145) + "\nthree\n")
        let error = try #require(alice.waitForEvent("error"), "\(alice.transcript.prefix(2000))")
        #expect(error["error"] as? String == "message_too_large")
        // The refusal is the input's, the code the server's: either may be printed first.
        let code = try #require(alice.waitForEvent("code", timeout: 20)?["code"] as? String, "\(alice.transcript.prefix(2000))")
        let bob = try ChildProcess.chatcli(["join", code, "--server", server.url, "--json"], name: "bob")
        #expect(bob.waitForMessages(count: 3) == ["one", "two", "three"], "\(bob.transcript.prefix(2000))")
        alice.closeInput()
        #expect(alice.waitForExit() == 0, "\(alice.transcript.suffix(1000))")
        bob.closeInput()
        #expect(bob.waitForExit() == 0)
    }

    @Test(arguments: ["aiortc-creates", "chatcli-creates"])
    func chatsWithAiortc(who: String) throws {
        _ = try Self.chatWithAiortc(try ServerProcess(), who: who)
    }

    /// chatcli relay-only against aiortc: our relayed candidate, Send
    /// indications then ChannelData through a real coturn, with an
    /// independent WebRTC stack at the other end.
    @Test(.enabled(if: Coturn.isInstalled, "coturn is not installed (Tools/test installs it)"))
    func chatsWithAiortcThroughTheRelay() throws {
        let coturn = try Coturn()
        defer { coturn.stop() }
        let connected = try Self.chatWithAiortc(try RelayTests.server(coturn, transports: ["udp"]), who: "chatcli-creates", flags: ["--relay-only"])
        #expect(connected?["path"] as? String == "relay", "\(connected ?? [:])")
    }

    /// Runs a chat between chatcli (with `flags`) and the aiortc peer, both
    /// ways in full; returns chatcli's `connected` event.
    /// `aiortc`: more arguments for aiortc_peer.py, run with `environment`;
    /// `inspect` sees its process once it has exited. `sizes`: of the long
    /// messages each side sends after the three short ones.
    static func chatWithAiortc(_ server: ServerProcess, who: String, flags: [String] = [], aiortc: [String] = [],
                               environment: [String: String] = [:], sizes: [Int] = allSizes,
                               inspect: (ChildProcess) -> Void = { _ in }) throws -> [String: Any]? {
        let dir = Harness.temporaryDirectory()
        let fromPython = messages("p", sizes: sizes), fromChatcli = messages("c", sizes: sizes)
        let file = dir + "/send.json"
        try JSONSerialization.data(withJSONObject: fromPython).write(to: URL(fileURLWithPath: file))
        let script = Harness.packageRoot + "/Tests/EndToEndTests/Python/aiortc_peer.py"
        let python: ChildProcess, chatcli: ChildProcess
        if who == "aiortc-creates" {
            python = try ChildProcess(Harness.pythonPath, [script, server.url, "create", "--send", file, "--expect", "\(fromChatcli.count)"] + aiortc,
                                      name: "aiortc", environment: environment)
            let code = try #require(python.waitForEvent("code", timeout: 20)?["code"] as? String, "\(python.transcript)")
            chatcli = try ChildProcess.chatcli(["join", code, "--server", server.url, "--json", "--accept-unproven"] + flags, name: "chatcli")
        } else {
            chatcli = try ChildProcess.chatcli(["create", "--server", server.url, "--json", "--accept-unproven"] + flags, name: "chatcli")
            // aiortc (like Inviso and browsers) knows only the six digits.
            let code = try #require(chatcli.waitForEvent("code")?["locator"] as? String, "\(chatcli.transcript)")
            python = try ChildProcess(Harness.pythonPath, [script, server.url, "join", code, "--send", file, "--expect", "\(fromChatcli.count)"] + aiortc,
                                      name: "aiortc", environment: environment)
        }
        chatcli.write(lines(fromChatcli))
        let got = chatcli.waitForMessages(count: fromPython.count, timeout: 60)
        #expect(got == fromPython, "got sizes \(got.map(\.utf8.count)), want \(fromPython.map(\.utf8.count))\n\(chatcli.stderr.suffix(20).joined(separator: "\n"))\n\(python.stderr.suffix(20).joined(separator: "\n"))")
        #expect(python.waitForExit(timeout: 60) == 0, "\(python.transcript.suffix(3000))")
        let pythonGot = python.stdout.compactMap { line -> String? in
            guard let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], obj["event"] as? String == "message" else { return nil }
            return obj["text"] as? String
        }
        #expect(pythonGot == fromChatcli)
        inspect(python)
        #expect(chatcli.waitForEvent("peer_left", timeout: 20) != nil, "\(chatcli.transcript.suffix(2000))")
        chatcli.closeInput()
        #expect(chatcli.waitForExit() == 0, "\(chatcli.transcript.suffix(2000))")
        return chatcli.waitForEvent("connected", timeout: 1)
    }
}

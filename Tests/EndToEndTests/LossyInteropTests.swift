import Foundation
import Testing

/// Interoperability through loss (issue 28): in a browser lab whose
/// namespace drops 1 % of UDP datagrams at random (every peer-to-peer
/// packet, each way, and STUN), chatcli still exchanges chat lines both
/// ways and a file with aiortc and with Chromium. chatcli sends chat lines
/// twice (a duplicate TSN the peer's SCTP must take), retransmits what is
/// lost and paces with BBR; the peers' SCTP stacks must take all of it.
@Suite(.ownThread, .serialized, .enabled(if: BrowserLab.available, "needs root, chromium and firefox-esr"))
struct LossyInteropTests {
    static let lossyUDP = ["-A", "INPUT", "-p", "udp", "-m", "statistic", "--mode", "random", "--probability", "0.01", "-j", "DROP"]

    @Test func chatAndFilesWithAiortcThroughOnePercentLoss() throws {
        let lab = try BrowserLab()
        try lab.iptables(Self.lossyUDP)
        let dir = Harness.temporaryDirectory()
        let fromPython = (0..<30).map { "aiortc line \($0)" }, fromChatcli = (0..<30).map { "chatcli line \($0)" }
        let file = dir + "/send.json"
        try JSONSerialization.data(withJSONObject: fromPython).write(to: URL(fileURLWithPath: file))
        let peer = Harness.packageRoot + "/Tests/EndToEndTests/Python/aiortc_peer.py"
        let chatcli = try lab.chatcli(["create"], name: "chatcli")
        let code = try #require(chatcli.waitForEvent("code")?["locator"] as? String, "\(chatcli.transcript)")
        let python = try lab.exec([Harness.pythonPath, peer, lab.url, "join", code, "--send", file, "--expect", "\(fromChatcli.count)"],
                                  name: "aiortc")
        chatcli.write(fromChatcli.joined(separator: "\n") + "\n")
        #expect(chatcli.waitForMessages(count: fromPython.count, timeout: 60) == fromPython, "\(chatcli.transcript.suffix(2000))")
        #expect(python.waitForExit(timeout: 60) == 0, "\(python.transcript.suffix(3000))")
        let pythonGot = python.stdout.compactMap { line -> String? in
            guard let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], obj["event"] as? String == "message" else { return nil }
            return obj["text"] as? String
        }
        #expect(pythonGot == fromChatcli)
        chatcli.closeInput()
        _ = chatcli.waitForExit(timeout: 20)

        // A file from chatcli to aiortc.
        let files = Harness.packageRoot + "/Tests/EndToEndTests/Python/aiortc_files.py"
        let data = Data(FileTransferTests.pattern(600_000, seed: 28))
        try data.write(to: URL(fileURLWithPath: dir + "/lossy.bin"))
        try FileManager.default.createDirectory(atPath: dir + "/py", withIntermediateDirectories: true)
        let sender = try lab.exec([Harness.chatcliPath, "send", dir + "/lossy.bin", "--server", lab.url, "--json", "--accept-unproven"],
                                  name: "chatcli send")
        let receiver = try lab.exec([Harness.pythonPath, files, lab.url, "receive", try FileTransferTests.code(sender, field: "locator"),
                                     "--out", dir + "/py"], name: "aiortc files")
        #expect(sender.waitForExit(timeout: 90) == 0, "\(sender.transcript)\n\(receiver.transcript)")
        #expect(FileManager.default.contents(atPath: dir + "/py/lossy.bin") == data)
        receiver.stop()
        #expect(try Self.dropped(lab) > 0, "the lab lost nothing")
    }

    @Test func chatAndAFileWithChromiumThroughOnePercentLoss() throws {
        let lab = try BrowserLab()
        try lab.iptables(Self.lossyUDP)
        let dir = Harness.temporaryDirectory()
        let (cli, browser) = try lab.chromiumJoinsChatcli(receivingInto: dir)

        let fromCLI = (0..<30).map { "chatcli line \($0)" }, fromPage = (0..<30).map { "page line \($0)" }
        cli.write(fromCLI.joined(separator: "\n") + "\n")
        #expect(try browser.peerMessages(count: fromCLI.count, timeout: 60) == fromCLI)
        try browser.send(fromPage)
        #expect(cli.waitForMessages(count: fromPage.count, timeout: 60) == fromPage, "\(cli.transcript.suffix(2000))")

        let size = 600_000
        _ = try browser.eval("""
            (() => { const b = new Uint8Array(\(size)); for (let i = 0; i < b.length; i++) b[i] = (i * 31 + (i >> 9)) & 255;
              const t = new DataTransfer(); t.items.add(new File([b], 'lossy.bin'));
              const input = document.getElementById('file'); input.files = t.files; input.dispatchEvent(new Event('change')); return true; })()
            """)
        let done = try #require(cli.waitForEvent("transfer_done", "error", timeout: 90), "\(cli.transcript)")
        #expect(done["event"] as? String == "transfer_done" && done["mismatches"] as? Int == 0, "\(done)")
        #expect(FileManager.default.contents(atPath: dir + "/lossy.bin") == BrowserFileTests.pagePattern(size))
        #expect(try Self.dropped(lab) > 0, "the lab lost nothing")
    }

    /// Datagrams the lossy rule dropped so far.
    static func dropped(_ lab: BrowserLab) throws -> Int {
        let list = try lab.exec(["iptables", "-w", "-L", "INPUT", "-v", "-x", "-n"], name: "iptables -L")
        _ = list.waitForExit(timeout: 30)
        let rule = list.stdout.first { $0.contains("DROP") && $0.contains("statistic") } ?? ""
        return Int(rule.split(separator: " ").first ?? "") ?? 0
    }
}

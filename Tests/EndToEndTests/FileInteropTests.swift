import Foundation
import TestSupport
import Testing

/// The file protocol against an independent peer written from
/// FileTransfer.md alone (Python/aiortc_files.py, on aiortc): a file each
/// way, and a hostile sender whose every lie the receiver refuses without
/// writing outside --out.
@Suite(.ownThread, .serialized) struct FileInteropTests {
    static let script = Harness.packageRoot + "/Tests/EndToEndTests/Python/aiortc_files.py"

    @Test func chatcliSendsToAnIndependentPeer() throws {
        let server = try ServerProcess()
        let dir = Harness.temporaryDirectory()
        let data = Data(FileTransferTests.pattern(1_500_000, seed: 8))
        try data.write(to: URL(fileURLWithPath: dir + "/to-python.bin"))
        try FileManager.default.createDirectory(atPath: dir + "/py", withIntermediateDirectories: true)
        let sender = try ChildProcess.chatcli(["send", dir + "/to-python.bin", "--server", server.url, "--json", "--accept-unproven"], name: "chatcli")
        let python = try ChildProcess(Harness.pythonPath, [Self.script, server.url, "receive", try FileTransferTests.code(sender, field: "locator"), "--out", dir + "/py"],
                                      name: "aiortc")
        #expect(sender.waitForExit(timeout: 90) == 0, "\(sender.transcript)\n\(python.transcript)")
        #expect(python.stdout.contains { $0.contains(#""event": "received""#) && $0.contains(#""ok": true"#) }, "\(python.transcript)")
        #expect(FileManager.default.contents(atPath: dir + "/py/to-python.bin") == data)
        python.stop()
    }

    @Test func anIndependentPeerSendsToChatcli() throws {
        let server = try ServerProcess()
        let dir = Harness.temporaryDirectory()
        let data = Data(FileTransferTests.pattern(1_200_000, seed: 12))
        try data.write(to: URL(fileURLWithPath: dir + "/from-python.bin"))
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        let python = try ChildProcess(Harness.pythonPath, [Self.script, server.url, "send", "--file", dir + "/from-python.bin"], name: "aiortc")
        let code = try #require(python.waitForEvent("code", timeout: 30)?["code"] as? String, "\(python.transcript)")
        let receiver = try ChildProcess.chatcli(["receive", code, "--out", dir + "/in", "--yes", "--server", server.url, "--json", "--accept-unproven"], name: "chatcli")
        #expect(python.waitForEvent("complete", timeout: 90) != nil, "\(python.transcript)\n\(receiver.transcript)")
        #expect(receiver.waitForExit(timeout: 30) == 0, "\(receiver.transcript)")
        #expect(FileManager.default.contents(atPath: dir + "/in/from-python.bin") == data)
    }

    @Test(arguments: [
        ("traversal", "the sender sent a path with a '..' component, a path that leaves the folder"),
        ("absurd", "the sender sent more bytes than it offered"),
        ("overflow", "the sender sent more bytes than it offered for small"),
        ("endless", "protocol violation: the first message was not a valid offer"),
    ])
    func aHostileSenderIsStoppedAndWritesNothingOutside(kind: String, reason: String) throws {
        let server = try ServerProcess()
        let dir = Harness.temporaryDirectory()
        let out = dir + "/in"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let python = try ChildProcess(Harness.pythonPath, [Self.script, server.url, "send", "--hostile", kind], name: "hostile")
        let code = try #require(python.waitForEvent("code", timeout: 30)?["code"] as? String, "\(python.transcript)")
        let receiver = try ChildProcess.chatcli(["receive", code, "--out", out, "--yes", "--server", server.url, "--json", "--accept-unproven"], name: "chatcli")
        let aborted = python.waitForEvent("aborted", timeout: 60)
        #expect(aborted?["reason"] as? String == reason, "\(python.transcript)\n\(receiver.transcript)")
        #expect(receiver.waitForExit(timeout: 30) == 1, "\(receiver.transcript)")
        #expect(receiver.stdout.contains { $0.contains(#""error":"transfer_failed""#) }, "\(receiver.transcript)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/escape.txt"))
        let written = (try? FileManager.default.subpathsOfDirectory(atPath: out)) ?? []
        let bytes = written.reduce(0) { sum, path in
            let attributes = try? FileManager.default.attributesOfItem(atPath: out + "/" + path)
            return sum + (attributes?[.type] as? FileAttributeType == .typeRegular ? attributes?[.size] as? Int ?? 0 : 0)
        }
        #expect(bytes <= 10, "never more than was offered: \(written)")
        python.stop()
    }
}

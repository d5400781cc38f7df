import Foundation
import TestSupport
import Testing

/// `chatcli receive CODE` killed -9 mid-transfer while `send` still waits:
/// the sender says so and waits, and the same command run again rejoins,
/// proves the code again and finishes the file from its `.part`. What each
/// side says when nothing, or only part of a file, came.
@Suite(.ownThreadFirst, .serialized) struct ReceiveAgainTests {
    /// Random-looking bytes up front (so a wrong offset shows), then a sparse tail made at once.
    static func makeFile(_ dir: String, size: Int) throws -> String {
        let path = dir + "/big.bin"
        try Data(FileTransferTests.pattern(min(size, 1 << 20), seed: 25)).write(to: URL(fileURLWithPath: path))
        if size > 1 << 20 { try FileHandle(forWritingAtPath: path).map { try $0.truncate(atOffset: UInt64(size)); try $0.close() } }
        return path
    }

    static func partSize(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    /// Waits until the receiver's `.part` holds `target` bytes.
    static func waitForPart(_ path: String, _ target: Int, timeout: TimeInterval = 120) -> Int {
        let deadline = Date() + timeout
        var reached = 0
        while Date() < deadline {
            reached = partSize(path)
            if reached >= target { break }
            usleep(1_000)
        }
        return reached
    }

    static func transferDone(_ p: ChildProcess) throws -> [String: Any] {
        let line = try #require(p.stdout.first { $0.hasPrefix(#"{"event":"transfer_done""#) }, "\(p.transcript)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func theSameReceiveCommandRunAgainAfterKillNineContinuesFromThePartFile() throws {
        let server = try ServerProcess()
        let dir = Harness.temporaryDirectory()
        defer { Harness.remove(dir) }
        let size = 300_000_000
        let file = try Self.makeFile(dir, size: size)
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let sender = try ChildProcess.chatcli(["send", file, "--server", server.url], name: "sender")
        let shown = sender.waitForLine(stderr: true, timeout: 20) { $0.contains("chatcli receive ") }
        let command = try #require(shown.flatMap { $0.components(separatedBy: "chatcli receive ").last }, "\(sender.transcript)")
        let code = try #require(command.split(separator: " ").first.map(String.init))
        let receive = ["receive", code, "--out", out, "--yes", "--server", server.url, "--json"]
        let first = try ChildProcess.chatcli(receive, name: "receiver")
        let reached = Self.waitForPart(out + "/big.bin.part", size * 4 / 10)
        #expect(reached >= size * 4 / 10, "\(first.transcript)")
        first.signal(SIGKILL)
        _ = first.waitForExit()

        // The sender notices and says what brings the receiver back.
        let noticed = sender.waitForLine(stderr: true, timeout: 20) { $0.contains("the receiver lost its connection") }
        #expect(noticed?.contains("chatcli receive \(code)") == true, "\(sender.transcript)")
        let kept = Self.partSize(out + "/big.bin.part")

        let again = try ChildProcess.chatcli(receive, name: "receiver again")
        #expect(again.waitForExit(timeout: 120) == 0, "\(again.transcript)")
        #expect(sender.waitForExit(timeout: 30) == 0, "\(sender.transcript)")
        #expect(FileTransferTests.bytes(out + "/big.bin") == FileTransferTests.bytes(file))
        let done = try Self.transferDone(again)
        let crossed = done["bytes_transferred"] as? Int ?? size
        #expect((done["bytes_resumed"] as? Int ?? 0) >= kept - (4 << 20), "\(done)")
        #expect(crossed < size - kept + (8 << 20), "well under the whole file crossed again: \(crossed) of \(size)")
        #expect(!FileManager.default.fileExists(atPath: out + "/.chatcli-receive-" + code.prefix(6)), "nothing left to rejoin")
        #expect(!sender.stderr.contains { $0.contains("what you type") || $0.contains("You left the chat") }, "\(sender.transcript)")
    }

    @Test func aDeclinedOfferIsNotCalledAPeerThatSentNothing() throws {
        let server = try ServerProcess()
        let dir = Harness.temporaryDirectory()
        let file = try Self.makeFile(dir, size: 1000)
        let sender = try ChildProcess.chatcli(["send", file, "--server", server.url, "--json"], name: "sender")
        let receiver = try ChildProcess.chatcli(["receive", try FileTransferTests.code(sender), "--out", dir, "--server", server.url],
                                                name: "receiver")
        receiver.closeInput()   // no terminal to ask, no --yes: declined
        #expect(receiver.waitForExit(timeout: 30) == 1, "\(receiver.transcript)")
        #expect(!receiver.stderr.contains { $0.contains("without sending anything") }, "\(receiver.transcript)")
        #expect(receiver.stderr.contains { $0.contains("declined") }, "\(receiver.transcript)")
    }

    @Test func aWrongCodeIsOneSentence() throws {
        let server = try ServerProcess()
        let dir = Harness.temporaryDirectory()
        let receiver = try ChildProcess.chatcli(["receive", "000000-brave-calm", "--out", dir, "--server", server.url], name: "receiver")
        #expect(receiver.waitForExit(timeout: 30) == 1, "\(receiver.transcript)")
        #expect(receiver.stderr.filter { $0.hasPrefix("chatcli:") }.count == 1, "\(receiver.transcript)")
        #expect(!receiver.stderr.contains { $0.contains("without sending anything") }, "\(receiver.transcript)")
    }

    /// A transfer under way between `send` and `receive --yes` into `out`, the receiver's `.part` past a tenth.
    static func midTransfer(_ server: ServerProcess, _ dir: String, out: String)
        throws -> (sender: ChildProcess, receiver: ChildProcess, size: Int) {
        let size = 1_000_000_000
        let file = try makeFile(dir, size: size)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let sender = try ChildProcess.chatcli(["send", file, "--server", server.url, "--json"], name: "sender")
        let receiver = try ChildProcess.chatcli(["receive", try FileTransferTests.code(sender), "--out", out, "--yes", "--server", server.url],
                                                name: "receiver")
        #expect(waitForPart(out + "/big.bin.part", size / 10) >= size / 10, "\(receiver.transcript)")
        return (sender, receiver, size)
    }

    @Test func aReceiverStoppedWithAPartFileIsToldHowToContinue() throws {
        let server = try ServerProcess()
        let dir = Harness.temporaryDirectory()
        let (sender, receiver, _) = try Self.midTransfer(server, dir, out: dir + "/out")
        defer { sender.signal(SIGKILL); Harness.remove(dir) }
        receiver.signal(SIGINT)
        #expect(receiver.waitForExit(timeout: 15) == 130, "\(receiver.transcript)")
        let hint = receiver.stderr.first { $0.contains(".part files in \(dir)/out") }
        #expect(hint?.contains("chatcli receive NEWCODE --out \(dir)/out' continues from there") == true, "\(receiver.transcript)")
        // The sender had its offer accepted: a new `send` is what continues it, never "the same commands".
        #expect(sender.waitForExit(timeout: 15) == 1, "\(sender.transcript)")
        #expect(sender.stderr.contains { $0.contains("run 'chatcli send' again") }, "\(sender.transcript)")
        #expect(!sender.stderr.contains { $0.contains("same commands") }, "\(sender.transcript)")
    }

    @Test func aSenderWhoseOfferWasNeverAcceptedPromisesNoResume() throws {
        let server = try ServerProcess()
        let dir = Harness.temporaryDirectory()
        let file = try Self.makeFile(dir, size: 1000)
        let sender = try ChildProcess.chatcli(["send", file, "--server", server.url], name: "sender")
        let shown = sender.waitForLine(stderr: true, timeout: 20) { $0.contains("chatcli receive ") }
        let code = try #require(shown.flatMap { $0.components(separatedBy: "chatcli receive ").last?.split(separator: " ").first }.map(String.init))
        let receiver = try ChildProcess.chatcli(["receive", code, "--out", dir, "--server", server.url], name: "receiver")
        receiver.closeInput()   // declined: no terminal to ask
        #expect(receiver.waitForExit(timeout: 30) == 1, "\(receiver.transcript)")
        #expect(sender.waitForExit(timeout: 30) == 1, "\(sender.transcript)")
        #expect(sender.stderr.contains { $0.contains("declined") }, "\(sender.transcript)")
        #expect(!sender.stderr.contains { $0.contains("resume") || $0.contains("again") || $0.contains("You left the chat") },
                "\(sender.transcript)")
    }

    @Test func aRerunAfterTheSenderLeftIsToldToAskForANewSend() throws {
        let server = try ServerProcess()
        let dir = Harness.temporaryDirectory()
        defer { Harness.remove(dir) }
        let out = dir + "/out"
        let file = try Self.makeFile(dir, size: 1_000_000_000)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let sender = try ChildProcess.chatcli(["send", file, "--server", server.url, "--json"], name: "sender")
        let receive = ["receive", try FileTransferTests.code(sender), "--out", out, "--yes", "--server", server.url]
        let first = try ChildProcess.chatcli(receive, name: "receiver")
        #expect(Self.waitForPart(out + "/big.bin.part", 10_000_000) >= 10_000_000, "\(first.transcript)")
        first.signal(SIGKILL)
        _ = first.waitForExit()
        #expect(sender.waitForEvent("peer_away", timeout: 20) != nil, "\(sender.transcript)")
        sender.signal(SIGTERM)
        #expect(sender.waitForExit(timeout: 10) == 143, "\(sender.transcript)")

        let again = try ChildProcess.chatcli(receive, name: "receiver again")
        #expect(again.waitForExit(timeout: 60) == 1, "\(again.transcript)")
        let told = again.stderr.first { $0.contains("the sender is no longer waiting for this code") }
        #expect(told?.contains("'chatcli receive NEWCODE --out \(out)' continues from there") == true, "\(again.transcript)")
        #expect(!FileManager.default.fileExists(atPath: out + "/.chatcli-receive-" + receive[1].prefix(6)))
    }
}


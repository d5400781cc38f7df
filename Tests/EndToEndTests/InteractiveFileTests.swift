import Foundation
import TestSupport
import Testing

/// `/send` in a real terminal: Bob is offered the folder, accepts it, and
/// both keep chatting while it arrives; progress is in both prompts.
@Suite(.ownThreadFirst, .serialized, .enabled(if: TmuxPane.available, "tmux is not installed (Tools/test installs it)"))
struct InteractiveFileTests {
    @Test func sendInAChatWhileChattingContinues() throws {
        let server = try ServerProcess()
        let dir = Harness.temporaryDirectory()
        let bobDir = dir + "/bob"
        try FileManager.default.createDirectory(atPath: bobDir, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/album/empty", withIntermediateDirectories: true)
        let big = Data(FileTransferTests.pattern(40_000_000, seed: 21))
        try big.write(to: URL(fileURLWithPath: dir + "/album/photo.raw"))

        let (alice, code) = try InteractiveTests.create(server)
        defer { alice.kill() }
        let bob = try TmuxPane(name: "bob", command: ["/bin/sh", "-c", "cd '\(bobDir)' && exec '\(Harness.chatcliPath)' join \(code) --server \(server.url) --accept-unproven"],
                               environment: ["CHATCLI_PASSPHRASE": "p", "XDG_DATA_HOME": Harness.temporaryDirectory(), "LANG": "C.UTF-8",
                                             "TERM": "screen", "NO_COLOR": "1"])
        defer { bob.kill() }
        for pane in [alice, bob] { #expect(pane.waitFor("[connected · direct] >", timeout: 30).ok, "\(pane.screen())") }

        alice.enter("/send \(dir)/album")
        #expect(alice.waitFor("waiting for your peer to accept").ok, "\(alice.screen())")
        let offered = bob.waitFor("/accept to receive it")
        #expect(offered.ok && offered.screen.contains("the folder album (1 file, 1 folder, 40.0 MB)"), "\(offered.screen)")
        bob.enter("/accept")
        // Chatting goes on while the folder arrives.
        alice.enter("still here?")
        #expect(bob.waitFor("peer: still here?").ok, "\(bob.screen())")
        bob.enter("yes, receiving")
        #expect(alice.waitFor("peer: yes, receiving").ok, "\(alice.screen())")
        let sent = alice.waitFor("Sent #1: verified (SHA-256).", timeout: 120)
        #expect(sent.ok, "\(sent.screen)")
        let received = bob.waitFor("Received #1 into ./album: verified (SHA-256).", timeout: 30)
        #expect(received.ok, "\(received.screen)")
        #expect(FileManager.default.contents(atPath: bobDir + "/album/photo.raw") == big)
        var isDir: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: bobDir + "/album/empty", isDirectory: &isDir) && isDir.boolValue)
        bob.enter("/decline")
        #expect(bob.waitFor("Your peer has offered nothing to decline.").ok)
    }

    @Test func progressShowsInThePromptOfBothSides() throws {
        let server = try ServerProcess()
        // Its bytes are never checked (the transfer is cancelled): a sparse file.
        let (alice, bob, dir) = try InteractiveTests.fileSenderAndReceiver(server, sparse: "huge.bin", size: 300_000_000)
        defer { alice.kill(); bob.kill(); Harness.remove(dir) }
        alice.enter("/send \(dir)/huge.bin")
        #expect(bob.waitFor("Your peer sends huge.bin (300.0 MB) as #1; receiving.").ok, "\(bob.screen())")
        let bobProgress = bob.waitFor(timeout: 60) { _ in bob.promptLine.range(of: #"↓ #1 huge\.bin \d+% .*/s"#, options: .regularExpression) != nil }
        #expect(bobProgress.ok, "\(bob.promptLine)")
        let aliceProgress = alice.waitFor(timeout: 60) { _ in alice.promptLine.range(of: #"↑ #1 huge\.bin \d+% .*/s"#, options: .regularExpression) != nil }
        #expect(aliceProgress.ok, "\(alice.promptLine)")
        alice.enter("/cancel")
        let stopped = bob.waitFor("Transfer #1 failed: the sender stopped the transfer: cancelled.", timeout: 30)
        #expect(stopped.ok, "\(stopped.screen)")
        #expect(FileManager.default.fileExists(atPath: dir + "/in/huge.bin.part"), "the partial file is kept for a resume")
    }
}

/// `chatcli receive` at a terminal: its "Accept it? [y/N]" question stays the
/// last line while notices arrive (issue 29): the second offer's sentence is
/// printed above it and the question asked again below.
@Suite(.ownThreadFirst, .serialized, .enabled(if: TmuxPane.available, "tmux is not installed (Tools/test installs it)"))
struct ReceiveQuestionTests {
    @Test func theQuestionStaysTheLastLineWhileAnotherOfferArrives() throws {
        let server = try ServerProcess()
        let dir = Harness.temporaryDirectory()
        try Data("first".utf8).write(to: URL(fileURLWithPath: dir + "/one.txt"))
        try Data("second".utf8).write(to: URL(fileURLWithPath: dir + "/two.txt"))
        let out = Harness.temporaryDirectory()
        let sender = try ChildProcess.chatcli(["send", dir + "/one.txt", dir + "/two.txt", "--server", server.url, "--json"], name: "sender")
        let code = try FileTransferTests.code(sender)
        let pane = try TmuxPane(name: "receive", command: [Harness.chatcliPath, "receive", code, "--out", out, "--server", server.url],
                                environment: ["LANG": "C.UTF-8", "TERM": "screen", "NO_COLOR": "1"])
        defer { pane.kill() }
        let both = pane.waitFor(timeout: 30) { $0.contains("two.txt") && $0.contains("one.txt") }
        #expect(both.ok, "\(both.screen)")
        let lines = pane.screen().split(separator: "\n").map(String.init).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        #expect(lines.last?.hasPrefix("Accept it? [y/N]") == true, "the question is the last line: \(lines)")
        #expect(lines.filter { $0.contains("Accept it?") && $0.count > "Accept it? [y/N] ".count + 2 }.isEmpty,
                "nothing printed into the question's line: \(lines)")
        pane.enter("y")
        #expect(pane.waitFor { $0.components(separatedBy: "Accept it? [y/N]").count >= 2 }.ok, "\(pane.screen())")
        pane.enter("y")
        #expect(sender.waitForExit(timeout: 30) == 0, "\(sender.transcript)")
        #expect(FileManager.default.contents(atPath: out + "/two.txt") == Data("second".utf8))
    }
}

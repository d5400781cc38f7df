import Foundation
import TestSupport
import Testing

/// `chatcli receive` whose disk is slower than the network (here: its
/// `--out -` is a FIFO nobody reads, so its writing thread is stuck and its
/// 4 MiB write-behind queue fills): the receiver stops reading the file's
/// data instead of its event loop waiting for the disk, so it still answers
/// a signal at once. Before, the loop waited in the full queue and SIGTERM
/// went unanswered.
@Suite(.ownThread, .serialized) struct SlowDiskTests {
    @Test func aReceiverWithAFullWriteQueueStillEndsOnSIGTERM() throws {
        let server = try ServerProcess()
        let dir = Harness.temporaryDirectory()
        let source = dir + "/big.bin"
        #expect(FileManager.default.createFile(atPath: source, contents: Data(count: 16 << 20)))
        let fifo = dir + "/out.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        // Opened for reading and never read: the receiver's writes fill the pipe and then wait.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        let sender = try ChildProcess.chatcli(["send", source, "--server", server.url, "--json"], name: "sender")
        defer { sender.stop() }
        let code = try #require(sender.waitForEvent("code", timeout: 20)?["code"] as? String, "\(sender.transcript)")
        let receiver = try ChildProcess("/bin/sh", ["-c", "exec '\(Harness.chatcliPath)' receive \(code) --out - --yes --server \(server.url) --json > '\(fifo)'"],
                                        name: "receiver")
        defer { receiver.stop() }
        // The queue is full once 4 MiB wait behind the 64 KiB the pipe took (the events go to stderr).
        let full = receiver.waitForLine(stderr: true, timeout: 60) { line in
            guard line.contains(#""event":"progress""#), let data = line.data(using: .utf8),
                  let event = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let done = event["bytes"] as? Int
            else { return false }
            return done >= 4 << 20
        }
        #expect(full != nil, "\(receiver.transcript)")
        receiver.signal(SIGTERM)
        let status = receiver.waitForExit(timeout: 10)
        #expect(status == 143, "\(receiver.transcript)")
        if status == nil { receiver.signal(SIGKILL) }   // a loop stuck in the queue answers nothing else
    }
}

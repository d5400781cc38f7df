import Foundation
import Testing
import TestSupport

/// A script that pipes more into a chat than its peer has acknowledged is
/// held back: chatcli keeps at most `ChatManager.inputHighWater` (4 MiB) of
/// unacknowledged text in memory and reads the rest only as the peer takes
/// it, so nothing is lost and memory stays bounded.
@Suite(.ownThread) struct InputBackPressureTests {
    /// 12 MiB of lines from a file, before anyone joins: `create` reads
    /// about 4 MiB of it and stops there; once the peer joins, every line
    /// arrives once, in order, and the file is read to its end.
    @Test func aScriptsInputWaitsForThePeerAndNothingIsLost() throws {
        let server = try ServerProcess()
        let path = Harness.temporaryDirectory() + "/lines.txt"
        let count = 3_072
        let padding = String(repeating: "x", count: 4_000)
        try Data((0..<count).map { "\($0) \(padding)\n" }.joined().utf8).write(to: URL(fileURLWithPath: path))
        let fileSize = count * (padding.count + 2) + (0..<count).reduce(0) { $0 + String($1).count }
        let alice = try ChildProcess("/bin/sh", ["-c", #"exec "$0" create --server "$1" --json < "$2""#,
                                                 Harness.chatcliPath, server.url, path], name: "alice")
        let code = try #require(alice.waitForEvent("code")?["code"] as? String, "\(alice.transcript)")

        // It reads until what nobody acknowledged reaches the limit (a
        // 4,000-byte line costs about 4 KiB of it), then stops: the offset
        // holds still for 2 s. (Without the limit it reads on to the end.)
        let limit = 4 << 20
        let deadline = Date().addingTimeInterval(120)
        var offset = 0, since = Date()
        while Date() < deadline {
            let now = Self.stdinOffset(alice.pid) ?? 0
            if now != offset { (offset, since) = (now, Date()) }
            if offset > 0 && Date().timeIntervalSince(since) > 2 { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(offset >= limit - (256 << 10) && offset <= limit + (256 << 10),
                "read \(offset) of \(fileSize) bytes with nobody there to acknowledge them")

        let bob = try ChildProcess.chatcli(["join", code, "--server", server.url, "--json"], name: "bob")
        let texts = bob.waitForMessages(count: count, timeout: 180)
        #expect(texts.count == count, "\(texts.count) of \(count) lines arrived\n\(alice.transcript.suffix(2000))")
        let inOrder = texts == (0..<count).map { "\($0) \(padding)" }   // compared outside #expect: 12 MiB
        #expect(inOrder, "lines lost, repeated or out of order")
        #expect(alice.waitForExit(timeout: 60) == 0, "\(alice.transcript.suffix(2000))")
        #expect(bob.waitForEvent("peer_left", timeout: 20) != nil, "\(bob.transcript.suffix(2000))")
        bob.closeInput()
        #expect(bob.waitForExit() == 0, "\(bob.transcript.suffix(2000))")
    }

    /// Where the process's standard input (a file) stands: `pos` in /proc/PID/fdinfo/0.
    static func stdinOffset(_ pid: Int32) -> Int? {
        guard let info = try? String(contentsOfFile: "/proc/\(pid)/fdinfo/0", encoding: .utf8) else { return nil }
        for line in info.split(separator: "\n") where line.hasPrefix("pos:") {
            return Int(line.dropFirst(4).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}

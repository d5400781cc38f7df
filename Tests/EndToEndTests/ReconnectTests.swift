import Foundation
import TestSupport
import Testing

/// Staying connected through the real binary: the signaling server crashes
/// and comes back mid-chat, and (in `Tools/natlab`, root only) the UDP path
/// is cut with iptables and restored. The chat resumes by itself and every
/// message typed meanwhile arrives once, in order.
@Suite(.ownThread, .serialized) struct ReconnectTests {
    /// `create` and `join` on `server`, both `connected`.
    static func connectedChat(_ server: ServerProcess) throws -> (alice: ChildProcess, bob: ChildProcess) {
        let alice = try ChildProcess.chatcli(["create", "--server", server.url, "--json"], name: "alice")
        let code = try #require(alice.waitForEvent("code")?["code"] as? String, "\(alice.transcript)")
        let bob = try ChildProcess.chatcli(["join", code, "--server", server.url, "--json"], name: "bob")
        try #require(alice.waitForEvent("connected", timeout: 20) != nil, "\(alice.transcript)\n\(bob.transcript)")
        try #require(bob.waitForEvent("connected") != nil, "\(bob.transcript)")
        return (alice, bob)
    }

    @Test func aServerCrashMidChatLosesNothing() throws {
        let server = try ServerProcess()
        let (alice, bob) = try Self.connectedChat(server)
        alice.write("a before\n")
        #expect(bob.waitForMessages(count: 1, timeout: 20) == ["a before"])

        try server.restart(crash: true, downFor: 2)
        alice.write("a while the server restarts\n")
        bob.write("b while the server restarts\n")
        #expect(bob.waitForMessages(count: 2, timeout: 20) == ["a before", "a while the server restarts"], "\(bob.transcript.suffix(2000))")
        #expect(alice.waitForMessages(count: 1, timeout: 20) == ["b while the server restarts"], "\(alice.transcript.suffix(2000))")
        // Both went back to the room: leaving reaches the peer through the new server.
        var sockets = 0
        #expect(server.process.waitForLine(stderr: true, timeout: 30) { line in
            if line.contains("ws_open") { sockets += 1 }
            return sockets == 2
        } != nil, "\(server.process.transcript)")
        alice.write("a after\n")
        #expect(bob.waitForMessages(count: 3, timeout: 20).last == "a after")
        alice.closeInput()
        #expect(alice.waitForExit(timeout: 20) == 0, "\(alice.transcript.suffix(2000))")
        #expect(bob.waitForEvent("peer_left", timeout: 20) != nil, "\(bob.transcript.suffix(2000))")
        #expect(bob.waitForExit() == 0, "\(bob.transcript.suffix(2000))")
    }

    /// With the signaling server gone, a peer that leaves is still seen to
    /// leave: its SCTP SHUTDOWN arrives over the P2P path, even though its
    /// process exits before the handshake completes.
    @Test func aPeerLeavingWhileTheServerIsDownIsReported() throws {
        let server = try ServerProcess()
        let (alice, bob) = try Self.connectedChat(server)
        server.stop(crash: true)
        alice.write("last words\n")
        alice.closeInput()
        #expect(bob.waitForMessages(count: 1, timeout: 20) == ["last words"], "\(bob.transcript.suffix(2000))")
        #expect(bob.waitForEvent("peer_left", timeout: 10) != nil, "\(alice.transcript.suffix(2000))\n\(bob.transcript.suffix(2000))")
        #expect(alice.waitForExit(timeout: 20) == 0, "\(alice.transcript.suffix(2000))")
        bob.closeInput()
        #expect(bob.waitForExit(timeout: 20) == 0, "\(bob.transcript.suffix(2000))")
    }

    @Test(.enabled(if: getuid() == 0, "natlab needs root"))
    func aCutUDPPathIsRestartedAndNothingIsLost() throws {
        let lab = try NATLab(left: "cone", right: "cone")
        let (alice, bob) = try lab.connectedChat()
        alice.write("before the cut\n")
        #expect(bob.waitForMessages(count: 1, timeout: 20) == ["before the cut"])

        // Every UDP datagram of the left side is dropped (signaling is TCP and stays up).
        try lab.run(["block", "--prefix", lab.prefix, "left"])
        let fromAlice = (0..<30).map { "alice during the cut \($0)" }
        let fromBob = (0..<30).map { "bob during the cut \($0)" }
        for (a, b) in zip(fromAlice, fromBob) {
            alice.write(a + "\n")
            bob.write(b + "\n")
        }
        Thread.sleep(forTimeInterval: 12)   // past the 8 s disconnected threshold: a restart is under way
        try lab.run(["unblock", "--prefix", lab.prefix, "left"])

        #expect(alice.waitForEvents("connected", count: 2, timeout: 40), "\(alice.transcript.suffix(3000))")
        #expect(bob.waitForEvents("connected", count: 2, timeout: 10), "\(bob.transcript.suffix(3000))")
        #expect(bob.waitForMessages(count: 31, timeout: 30) == ["before the cut"] + fromAlice, "\(bob.transcript.suffix(3000))")
        #expect(alice.waitForMessages(count: 30, timeout: 30) == fromBob, "\(alice.transcript.suffix(3000))")
        alice.closeInput()
        #expect(alice.waitForExit(timeout: 20) == 0, "\(alice.transcript.suffix(2000))")
        #expect(bob.waitForEvent("peer_left", timeout: 20) != nil)
        bob.closeInput()
        #expect(bob.waitForExit(timeout: 20) == 0)
    }
}

import Foundation
import TestSupport
import Testing

/// A real server and real `chatcli` processes pairing by code (WireProtocol §4).
@Suite(.ownThread, .serialized) struct PairingTests {
    @Test func twoClientsPairByCodeAndLeaveCleanly() throws {
        let server = try ServerProcess()
        let alice = try ChildProcess.chatcli(["create", "--server", server.url, "--json", "--accept-unproven"], name: "alice")
        let code = try #require(alice.waitForEvent("code"), "\(alice.transcript)")
        let digits = try #require(code["locator"] as? String)
        #expect(digits.count == 6 && digits.allSatisfy(\.isASCII) && Int(digits) != nil)
        #expect((code["code"] as? String)?.hasPrefix(digits + "-") == true)
        #expect((code["expires"] as? String)?.hasSuffix("Z") == true)
        #expect(alice.waitForEvent("waiting") != nil)

        let bob = try ChildProcess.chatcli(["join", digits, "--server", server.url, "--json", "--accept-unproven"], name: "bob")
        #expect(bob.waitForEvent("peer_joined") != nil, "\(bob.transcript)")
        #expect(alice.waitForEvent("peer_joined") != nil, "\(alice.transcript)")

        // End of input: both leave, the other side hears it, both exit 0.
        alice.closeInput()
        #expect(alice.waitForExit() == 0, "\(alice.transcript)")
        #expect(alice.stdout.last == #"{"event":"closed"}"#, "\(alice.transcript)")
        #expect(bob.waitForEvent("peer_left") != nil, "\(bob.transcript)")
        bob.closeInput()
        #expect(bob.waitForExit() == 0, "\(bob.transcript)")
    }

    @Test func humanOutputShowsTheCodeAndHowToJoin() throws {
        let server = try ServerProcess()
        let alice = try ChildProcess.chatcli(["create", "--server", server.url, "--accept-unproven"], name: "alice")
        let line = try #require(alice.waitForLine { $0.contains("chatcli join") }, "\(alice.transcript)")
        // Both sides need the same server: the invite names it (not the default one).
        #expect(line.range(of: #"chatcli join \d{6}-[a-z]+-[a-z]+ --server "# + server.url + "$", options: .regularExpression) != nil, "\(line)")
        #expect(alice.stdout.contains { $0.hasPrefix("Your code: ") && $0.contains("(valid until ") }, "\(alice.transcript)")
        let code = try #require(line.range(of: #"join \d{6}"#, options: .regularExpression).map { String(line[$0].suffix(6)) })
        let bob = try ChildProcess.chatcli(["join", code, "--server", server.url, "--accept-unproven"], name: "bob")
        #expect(bob.waitForLine { $0.contains("peer is here") } != nil, "\(bob.transcript)")
        #expect(alice.waitForLine { $0.contains("peer is here") } != nil, "\(alice.transcript)")
        bob.signal(SIGINT)
        #expect(bob.waitForExit() == 130, "\(bob.transcript)")
        #expect(alice.waitForLine { $0.contains("peer left") } != nil, "\(alice.transcript)")
        #expect(alice.waitForExit() == 0, "\(alice.transcript)")
    }

    @Test func serverRestartKeepsTheRoomAndTheWaitingCreator() throws {
        let server = try ServerProcess()
        let alice = try ChildProcess.chatcli(["create", "--server", server.url, "--json", "--accept-unproven"], name: "alice")
        let code = try #require(alice.waitForEvent("code")?["code"] as? String, "\(alice.transcript)")
        try server.restart()
        let bob = try ChildProcess.chatcli(["join", code, "--server", server.url, "--json"], name: "bob")
        #expect(bob.waitForEvent("peer_joined", timeout: 20) != nil, "\(bob.transcript + server.process.transcript)")
        #expect(alice.waitForEvent("peer_joined", timeout: 20) != nil, "\(alice.transcript)")
        alice.closeInput()
        bob.closeInput()
        #expect(alice.waitForExit() == 0, "\(alice.transcript)")
        #expect(bob.waitForExit() == 0, "\(bob.transcript)")
    }

    @Test func interruptWhileWaitingLeavesWithOneSentence() throws {
        let server = try ServerProcess()
        let alice = try ChildProcess.chatcli(["create", "--server", server.url, "--accept-unproven"], name: "alice")
        #expect(alice.waitForLine(stderr: true) { $0.contains("Waiting") } != nil, "\(alice.transcript)")
        alice.signal(SIGINT)
        #expect(alice.waitForExit() == 130, "\(alice.transcript)")
        #expect(!alice.stderr.joined().contains("Fatal error"), "\(alice.transcript)")
    }
}

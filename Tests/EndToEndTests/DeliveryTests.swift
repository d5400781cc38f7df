import Foundation
import TestSupport
import Testing

/// Nothing typed is lost (the finding: lines typed while the peer was
/// killed never arrived after its `resume`): either peer is killed with
/// SIGKILL mid-chat, the other types 20 lines while it is gone, it resumes,
/// and every line arrives exactly once, in order; once more with the
/// signaling server restarting while the peer is away.
@Suite(.ownThread, .serialized) struct DeliveryTests {
    @Test(arguments: [("creator", false), ("joiner", false), ("joiner", true)])
    func linesTypedWhileThePeerIsKilledArriveOnceAfterItResumes(killed: String, serverRestart: Bool) throws {
        let server = try ServerProcess()
        let creatorHome = StoreHome(), joinerHome = StoreHome()
        let creator = try creatorHome.chatcli(["create", "--server", server.url, "--json"], name: "creator")
        let code = try #require(creator.waitForEvent("code", timeout: 20)?["code"] as? String, "\(creator.transcript)")
        let joiner = try joinerHome.chatcli(["join", code, "--server", server.url, "--json"], name: "joiner")
        try #require(creator.waitForEvent("connected", timeout: 30) != nil, "\(creator.transcript)\n\(joiner.transcript)")
        try #require(joiner.waitForEvent("connected", timeout: 10) != nil, "\(joiner.transcript)")
        let (victim, survivor, home) = killed == "creator" ? (creator, joiner, creatorHome) : (joiner, creator, joinerHome)

        survivor.write("before\n")
        #expect(victim.waitForMessages(count: 1) == ["before"], "\(victim.transcript)")
        victim.signal(SIGKILL)
        _ = victim.waitForExit()
        #expect(survivor.waitForEvent("peer_away", timeout: 20) != nil, "\(survivor.transcript)")
        let lines = (1...20).map { "line \($0) while you were away" }
        survivor.write(lines.joined(separator: "\n") + "\n")
        if serverRestart { try server.restart(crash: true, downFor: 1) }

        let name = try #require(try home.sessions().first?["name"] as? String)
        let back = try home.chatcli(["resume", name, "--json"], name: "\(killed) back")
        #expect(back.waitForEvent("connected", timeout: 60) != nil, "\(back.transcript)\n\(survivor.transcript)")
        let got = back.waitForMessages(count: 20, timeout: 30)
        #expect(got == lines, "\(back.transcript)\n\(survivor.transcript)")
        #expect(survivor.waitForEvent("peer_back") != nil, "\(survivor.transcript)")

        // Nothing more arrives (no duplicates), and the other way works too.
        back.write("I am back\n")
        #expect(survivor.waitForMessages(count: 1, timeout: 20).last == "I am back", "\(survivor.transcript)")
        back.closeInput()
        #expect(back.waitForExit() == 0, "\(back.transcript)")
        #expect(back.receivedMessages == lines, "each line exactly once: \(back.receivedMessages)")
        survivor.closeInput()
        _ = survivor.waitForExit()
    }
}

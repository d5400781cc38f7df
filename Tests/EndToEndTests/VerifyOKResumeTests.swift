import Foundation
import SessionStore
import TestSupport
import Testing

/// `/verify ok` is saved with the session: after `kill -9` and `chatcli
/// resume`, the chat whose safety words Bob verified is still verified on
/// his screen (same certificates, same words), while Alice, who never
/// compared them, is still asked to.
@Suite(.ownThread, .serialized, .enabled(if: TmuxPane.available, "tmux is not installed (Tools/test installs it)"))
struct VerifyOKResumeTests {
    static func bob(_ home: StoreHome, _ arguments: [String]) throws -> TmuxPane {
        let environment = home.environment().merging(["LANG": "C.UTF-8", "TERM": "screen", "NO_COLOR": "1"]) { $1 }
        return try TmuxPane(name: "bob", command: [Harness.chatcliPath] + arguments, environment: environment)
    }

    /// Bob's saved session as the store holds it (read like `chatcli` does, with the passphrase).
    static func pinnedPeer(_ home: StoreHome) -> SessionRecord.PinnedPeer? {
        let store = SessionStore(directory: home.dataHome + "/chatcli")
        let contents = try? store.read(passphrase: SecureBytes(copying: Array("correct horse".utf8)))
        return contents?.list().first?.peer
    }

    @Test func aChatVerifiedBySafetyWordsStaysVerifiedAfterResume() throws {
        let server = try ServerProcess()
        let aliceHome = StoreHome(), bobHome = StoreHome()
        let alice = try aliceHome.chatcli(["create", "--server", server.url, "--json", "--accept-unproven"], name: "alice")
        let locator = try #require(alice.waitForEvent("code")?["locator"] as? String, "\(alice.transcript)")
        alice.write("before bob accepted\n")
        let bob = try Self.bob(bobHome, ["join", locator, "--server", server.url])
        defer { bob.kill() }
        // Only the six digits: Bob's chat waits for him, showing and sending nothing.
        let up = bob.waitFor("[unverified peer · /verify ok to start] >", timeout: 30)
        try #require(up.ok, "\(up.screen)\n\(alice.transcript)")
        let first = try #require(alice.waitForEvent("connected", timeout: 30), "\(alice.transcript)")
        #expect(first["auth"] as? String == "none")
        let words = try #require(first["sas"] as? String)
        #expect(up.screen.contains("Safety words: \(words)"), "the same words on both sides: \(up.screen)")
        bob.enter("typed while unverified")
        #expect(bob.waitFor("Not sent yet: your peer is not verified").ok, "\(bob.screen())")
        #expect(!bob.screen().contains("before bob accepted") && !alice.stdout.contains { $0.contains(#""event":"message""#) })

        bob.enter("/verify ok")
        #expect(bob.waitFor("[connected · direct · verified] >").ok, "\(bob.screen())")
        // Accepted: what waited flows both ways.
        #expect(bob.waitFor("peer: before bob accepted").ok, "\(bob.screen())")
        #expect(alice.waitForMessages(count: 1, timeout: 30) == ["typed while unverified"], "\(alice.transcript)")
        // Saved (one Argon2id-sealed write): poll the store with generous time.
        let deadline = Date().addingTimeInterval(30)
        while Self.pinnedPeer(bobHome)?.verifiedByWords != true, Date() < deadline { usleep(200_000) }
        #expect(Self.pinnedPeer(bobHome)?.verifiedByWords == true, "the pin is saved as verified by the words")

        let name = try #require(try bobHome.sessions().first?["name"] as? String)
        let pid = try #require(bob.programPID)
        kill(pid, SIGKILL)
        #expect(bob.waitForExit(timeout: 20) == 137, "\(bob.screen())")
        bob.kill()

        let back = try Self.bob(bobHome, ["resume", name])
        defer { back.kill() }
        let resumed = back.waitFor("[connected · direct · verified] >", timeout: 30)
        #expect(resumed.ok, "still verified after the resume:\n\(resumed.screen)\n\(alice.transcript)")
        let unwrapped = resumed.screen.replacingOccurrences(of: "\n", with: "")   // 120 columns wrap the sentence
        #expect(unwrapped.contains("verified: you compared the safety words (\(words)) with this peer"), "\(resumed.screen)")
        #expect(!resumed.screen.contains("Type /verify"), "nothing to compare again: \(resumed.screen)")
        // Alice never verified: her second connection is unproven, with the same words.
        #expect(alice.waitForEvents("connected", count: 2, timeout: 30), "\(alice.transcript)")
        let again = PinnedIdentityTests.connected(alice).last
        #expect(again?["auth"] as? String == "none" && again?["sas"] as? String == words, "\(alice.transcript)")

        back.enter("still verified")
        #expect(alice.waitForMessages(count: 2, timeout: 30).last == "still verified", "\(alice.transcript)")
        alice.closeInput()
        #expect(alice.waitForExit(timeout: 30) == 0, "\(alice.transcript)")
    }
}

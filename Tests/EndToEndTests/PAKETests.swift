import Foundation
import TestSupport
import Testing

/// Codes with a secret part through the real binary: the PAKE proves the
/// peer ("auth":"pake"), a wrong secret ends both sides with pake_failed and
/// burns the code, and the six digits alone pair only when accepted.
@Suite(.ownThread, .serialized) struct PAKEEndToEndTests {
    @Test func theWholeCodeVerifiesBothSides() throws {
        let server = try ServerProcess()
        let alice = try ChildProcess.chatcli(["create", "--server", server.url, "--json"], name: "alice")
        let code = try #require(alice.waitForEvent("code")?["code"] as? String, "\(alice.transcript)")
        #expect(code.count > 7, "a secret part: \(code)")
        let bob = try ChildProcess.chatcli(["join", code, "--server", server.url, "--json"], name: "bob")
        alice.write("hello bob\n")
        bob.write("hello alice\n")
        let a = try #require(alice.waitForEvent("connected", timeout: 30), "\(alice.transcript)\n\(bob.transcript)")
        let b = try #require(bob.waitForEvent("connected", timeout: 30), "\(bob.transcript)")
        #expect(a["auth"] as? String == "pake" && b["auth"] as? String == "pake")
        #expect(alice.waitForMessages(count: 1) == ["hello alice"])
        #expect(bob.waitForMessages(count: 1) == ["hello bob"])
        alice.closeInput()
        #expect(alice.waitForExit() == 0, "\(alice.transcript)")
        bob.closeInput()
        #expect(bob.waitForExit() == 0, "\(bob.transcript)")
        // Only the six digits ever reached the server's log.
        let secret = String(code.dropFirst(7))
        #expect(!server.process.transcript.contains(secret), "the server never sees the secret")
    }

    @Test func aWrongSecretFailsBothSidesDeliversNothingAndBurnsTheCode() throws {
        let server = try ServerProcess()
        let alice = try ChildProcess.chatcli(["create", "--server", server.url, "--json"], name: "alice")
        let code = try #require(alice.waitForEvent("code")?["code"] as? String, "\(alice.transcript)")
        let words = code.dropFirst(7).split(separator: "-")
        let wrong = String(code.prefix(6)) + "-" + (words.first == "able" ? "zesty" : "able") + "-" + (words.last ?? "")
        let bob = try ChildProcess.chatcli(["join", wrong, "--server", server.url, "--json"], name: "bob")
        alice.write("secret for bob\n")
        bob.write("secret for alice\n")
        for p in [alice, bob] {
            let error = try #require(p.waitForEvent("error", timeout: 30), "\(p.transcript)")
            #expect(error["error"] as? String == "pake_failed", "\(p.transcript)")
            #expect((error["message"] as? String)?.contains("did not match") == true)
            #expect(p.waitForExit(timeout: 20) == 1, "\(p.transcript)")
            #expect(!p.stdout.contains { $0.contains(#""event":"message""#) || $0.contains(#""event":"connected""#) }, "\(p.transcript)")
        }
        // One guess per room: nobody can try the code again.
        let carol = try ChildProcess.chatcli(["join", code, "--server", server.url, "--json"], name: "carol")
        #expect(carol.waitForExit(timeout: 20) == 1, "\(carol.transcript)")
        #expect(!carol.stdout.contains { $0.contains(#""event":"connected""#) })
    }

    @Test func theSixDigitsAlonePairOnlyWithAcceptUnprovenAndSayItFirst() throws {
        let server = try ServerProcess()
        let alice = try ChildProcess.chatcli(["create", "--server", server.url, "--json", "--accept-unproven"], name: "alice")
        let locator = try #require(alice.waitForEvent("code")?["locator"] as? String, "\(alice.transcript)")
        let bob = try ChildProcess.chatcli(["join", locator, "--server", server.url, "--json", "--accept-unproven"], name: "bob")
        alice.write("hi\n")
        let a = try #require(alice.waitForEvent("connected", timeout: 30), "\(alice.transcript)\n\(bob.transcript)")
        let b = try #require(bob.waitForEvent("connected", timeout: 30), "\(bob.transcript)")
        #expect(a["auth"] as? String == "none" && b["auth"] as? String == "none")
        #expect(a["sas"] as? String == b["sas"] as? String)
        #expect(alice.waitForEvent("unproven", timeout: 1)?["reason"] as? String == "no_pake", "\(alice.transcript)")
        #expect(bob.waitForEvent("unproven", timeout: 1)?["reason"] as? String == "digits_only", "\(bob.transcript)")
        #expect(bob.waitForMessages(count: 1) == ["hi"])
        alice.closeInput()
        #expect(alice.waitForExit() == 0)
        bob.closeInput()
        #expect(bob.waitForExit() == 0)
    }

    /// `chatcli join 123456` typed on purpose is no exception: a script
    /// that did not say --accept-unproven ends with one sentence, nothing sent.
    @Test func theSixDigitsAloneWithoutAcceptUnprovenEndBothScriptsHavingSentNothing() throws {
        let server = try ServerProcess()
        let alice = try ChildProcess.chatcli(["create", "--server", server.url, "--json", "--accept-unproven"], name: "alice")
        let locator = try #require(alice.waitForEvent("code")?["locator"] as? String, "\(alice.transcript)")
        let bob = try ChildProcess.chatcli(["join", locator, "--server", server.url], name: "bob")
        bob.write("hi\n")
        #expect(bob.waitForExit(timeout: 30) == 1, "\(bob.transcript)")
        let sentences = bob.stderr.filter { $0.hasPrefix("chatcli: ") }
        #expect(sentences.count == 1 && sentences.first?.contains("run again with --accept-unproven") == true, "one sentence: \(bob.transcript)")
        #expect(bob.stderr.contains { $0.hasPrefix("Safety words: ") }, "\(bob.transcript)")
        #expect(alice.waitForEvent("peer_left", timeout: 30) != nil, "\(alice.transcript)")
        #expect(!alice.stdout.contains { $0.contains(#""event":"message""#) }, "\(alice.transcript)")
        alice.closeInput()
        _ = alice.waitForExit()
    }

    @Test func aCodeGuesserGets429sAndNeverAPairing() throws {
        let server = try ServerProcess(arguments: ["--rate-limit", "3"])
        let alice = try ChildProcess.chatcli(["create", "--server", server.url, "--json"], name: "alice")
        let locator = try #require(alice.waitForEvent("code")?["locator"] as? String, "\(alice.transcript)")
        var limited: ChildProcess?
        for attempt in 0..<10 {
            // Any six digits but the creator's.
            let guess = String(format: "%06d", (Int(locator)! + 1 + attempt) % 1_000_000)
            let p = try ChildProcess.chatcli(["join", guess, "--server", server.url, "--json"], name: "guess \(attempt)")
            #expect(p.waitForExit(timeout: 20) == 1, "\(p.transcript)")
            #expect(!p.stdout.contains { $0.contains(#""event":"connected""#) })
            if p.stdout.contains(where: { $0.contains(#""error":"rate_limited""#) }) { limited = p; break }
        }
        let p = try #require(limited, "the server never answered 429")
        let errors = p.stdout.filter { $0.contains(#""event":"error""#) }
        #expect(errors.count == 1, "one error, one sentence: \(p.transcript)")
        #expect(errors.first?.contains("Too many wrong codes from this network") == true, "\(p.transcript)")
        // Even the right code is refused from this address for now: guessing never pairs.
        let lucky = try ChildProcess.chatcli(["join", locator, "--server", server.url, "--json"], name: "lucky")
        #expect(lucky.waitForExit(timeout: 20) == 1, "\(lucky.transcript)")
        #expect(lucky.stdout.contains { $0.contains(#""error":"rate_limited""#) }, "\(lucky.transcript)")
        #expect(!alice.stdout.contains { $0.contains(#""event":"connected""#) })
        alice.signal(SIGINT)
        _ = alice.waitForExit()
    }

    @Test func aMistypedWordIsAUsageErrorThatNamesIt() throws {
        let p = try ChildProcess.chatcli(["join", "123456-brave-otter", "--server", "http://127.0.0.1:9"], name: "typo")
        #expect(p.waitForExit() == 2)
        #expect(p.stderr.contains { $0.contains("'otter' is not one of the code's words") }, "\(p.transcript)")
    }
}

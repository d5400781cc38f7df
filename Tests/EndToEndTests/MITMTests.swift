import Foundation
import Testing

/// A signaling server that attacks: two real chatcli processes pair through
/// `mitm_server.py`, which terminates each one's WebRTC connection with an
/// aiortc peer of its own (so each side sees the server's DTLS fingerprint)
/// and relays `chat` and `ctl` between them unchanged, the PAKE included.
/// The whole code exposes it on both sides; the six digits alone do not,
/// but the safety words differ.
@Suite(.serialized) struct MITMTests {
    @Test func theWholeCodeExposesTheServerInTheMiddleOnBothSidesAndNothingIsDelivered() throws {
        let server = try ServerProcess()
        let mitm = try MITMServer(upstream: server)
        let alice = try ChildProcess.chatcli(["create", "--server", mitm.url, "--json", "--no-store"], name: "alice")
        let code = try #require(alice.waitForEvent("code")?["code"] as? String, "\(alice.transcript)")
        #expect(code.count > 7, "a secret part: \(code)")
        let bob = try ChildProcess.chatcli(["join", code, "--server", mitm.url, "--json", "--no-store"], name: "bob")
        alice.write("for bob only\n")
        bob.write("for alice only\n")
        for p in [alice, bob] {
            let error = try #require(p.waitForEvent("error", timeout: 60), "\(p.transcript)\n\(mitm.process.transcript)")
            #expect(error["error"] as? String == "pake_failed", "\(p.transcript)")
            #expect((error["message"] as? String)?.contains("someone may be intercepting this chat") == true, "\(p.transcript)")
            #expect(p.waitForExit(timeout: 20) == 1, "\(p.transcript)")
            #expect(!p.stdout.contains { $0.contains(#""event":"message""#) || $0.contains(#""event":"connected""#) }, "\(p.transcript)")
        }
        // The server relayed the PAKE faithfully both ways: key confirmation, not a
        // dropped message, is what failed; and not one chat line crossed it.
        let share = mitm.waitForRelay("ctl") { $0.contains(#""step":"share""#) }
        let shareConfirm = mitm.waitForRelay("ctl") { $0.contains(#""step":"share_confirm""#) }
        #expect(share != nil && shareConfirm != nil && share != shareConfirm, "one from each side\n\(mitm.process.transcript)")
        #expect(mitm.relayed("chat").isEmpty, "\(mitm.process.transcript)")
    }

    /// A server that hides the PAKE (no `a=x-chatcli-pake`, as a browser's
    /// description) gains nothing: the joiner, who typed the secret, never
    /// falls back and fails at once; the creator goes on only as with any
    /// peer without the PAKE (a browser's): unproven, told to compare the
    /// words, and with nobody at the other end.
    @Test func hidingThePAKEFailsTheJoinerAndLeavesTheCreatorUnprovenWithANotice() throws {
        let server = try ServerProcess()
        let mitm = try MITMServer(upstream: server, arguments: ["--no-pake-attribute"])
        let alice = try ChildProcess.chatcli(["create", "--server", mitm.url, "--json", "--no-store"], name: "alice")
        let code = try #require(alice.waitForEvent("code")?["code"] as? String, "\(alice.transcript)")
        let bob = try ChildProcess.chatcli(["join", code, "--server", mitm.url, "--json", "--no-store"], name: "bob")
        bob.write("for alice only\n")
        let error = try #require(bob.waitForEvent("error", timeout: 60), "\(bob.transcript)\n\(mitm.process.transcript)")
        #expect(error["error"] as? String == "pake_failed", "\(bob.transcript)")
        #expect(bob.waitForExit(timeout: 20) == 1, "\(bob.transcript)")
        #expect(!bob.stdout.contains { $0.contains(#""event":"connected""#) }, "\(bob.transcript)")
        let a = try #require(alice.waitForEvent("connected", timeout: 60), "\(alice.transcript)\n\(mitm.process.transcript)")
        #expect(a["auth"] as? String == "none")
        #expect(alice.waitForLine(stderr: true, timeout: 20) { $0.contains("did not prove the code's secret part") } != nil, "\(alice.transcript)")
        #expect(alice.waitForEvent("peer_left", timeout: 30) != nil, "Bob left: \(alice.transcript)")
        #expect(!alice.stdout.contains { $0.contains(#""event":"message""#) }, "\(alice.transcript)")
        #expect(mitm.relayed("chat").isEmpty, "\(mitm.process.transcript)")
        alice.closeInput()
        #expect(alice.waitForExit(timeout: 30) == 0, "\(alice.transcript)")
    }

    @Test func theSixDigitsAloneLetTheServerReadTheChatButTheSafetyWordsDiffer() throws {
        let server = try ServerProcess()
        let mitm = try MITMServer(upstream: server)
        let alice = try ChildProcess.chatcli(["create", "--server", mitm.url, "--json", "--no-store"], name: "alice")
        let locator = try #require(alice.waitForEvent("code")?["locator"] as? String, "\(alice.transcript)")
        let bob = try ChildProcess.chatcli(["join", locator, "--server", mitm.url, "--json", "--no-store"], name: "bob")
        alice.write("hello bob\n")
        bob.write("hello alice\n")
        let a = try #require(alice.waitForEvent("connected", timeout: 60), "\(alice.transcript)\n\(bob.transcript)\n\(mitm.process.transcript)")
        let b = try #require(bob.waitForEvent("connected", timeout: 60), "\(bob.transcript)\n\(mitm.process.transcript)")
        #expect(a["auth"] as? String == "none" && b["auth"] as? String == "none", "the PAKE cannot see it")
        let aliceWords = try #require(a["sas"] as? String), bobWords = try #require(b["sas"] as? String)
        #expect(aliceWords != bobWords, "the safety words expose the server in the middle")
        for p in [alice, bob] {
            #expect(p.waitForLine(stderr: true, timeout: 20) { $0.contains("compare the safety words") } != nil, "\(p.transcript)")
        }
        // The chat goes through, read by the server on the way.
        #expect(alice.waitForMessages(count: 1, timeout: 30) == ["hello alice"], "\(alice.transcript)")
        #expect(bob.waitForMessages(count: 1, timeout: 30) == ["hello bob"], "\(bob.transcript)")
        let fromAlice = mitm.waitForRelay("chat") { $0 == "hello bob" }
        let fromBob = mitm.waitForRelay("chat") { $0 == "hello alice" }
        #expect(fromAlice != nil && fromBob != nil && fromAlice != fromBob, "one from each side\n\(mitm.process.transcript)")
        alice.closeInput()
        #expect(alice.waitForExit(timeout: 30) == 0, "\(alice.transcript)")
        #expect(bob.waitForEvent("peer_left", timeout: 20) != nil, "\(bob.transcript)")
        bob.closeInput()
        #expect(bob.waitForExit(timeout: 30) == 0, "\(bob.transcript)")
    }
}

/// `Python/mitm_server.py` in front of an honest `chatcli serve`.
final class MITMServer {
    let process: ChildProcess
    let url: String

    init(upstream: ServerProcess, arguments: [String] = []) throws {
        let script = Harness.packageRoot + "/Tests/EndToEndTests/Python/mitm_server.py"
        process = try ChildProcess(Harness.pythonPath, [script, upstream.url] + arguments, name: "mitm")
        guard let url = process.waitForEvent("listening", timeout: 30)?["url"] as? String else {
            throw HarnessError.serverDidNotStart(process.transcript)
        }
        self.url = url
    }

    /// What the server relayed on channel `label`, as (from, text), in order.
    func relayed(_ label: String) -> [(from: String, text: String)] {
        process.stdout.compactMap { line in
            guard let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  obj["event"] as? String == "relayed", obj["label"] as? String == label,
                  let from = obj["from"] as? String, let text = obj["text"] as? String else { return nil }
            return (from, text)
        }
    }

    /// Waits until the server relayed a text on `label` that matches; returns
    /// the side it came from (`offerer` or `answerer` of the room).
    func waitForRelay(_ label: String, timeout: TimeInterval = 20, _ match: (String) -> Bool) -> String? {
        var side: String?
        _ = process.waitForLine(timeout: timeout) { line in
            guard let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  obj["event"] as? String == "relayed", obj["label"] as? String == label,
                  let text = obj["text"] as? String, match(text) else { return false }
            side = obj["from"] as? String
            return true
        }
        return side
    }

    /// Python helpers inherit a blocked SIGTERM: SIGKILL.
    deinit {
        process.signal(SIGKILL)
        _ = process.waitForExit()
    }
}

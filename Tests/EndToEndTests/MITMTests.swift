import Foundation
import TestSupport
import Testing

/// A signaling server that attacks: two real chatcli processes pair through
/// `mitm_server.py`, which terminates each one's WebRTC connection with an
/// aiortc peer of its own (so each side sees the server's DTLS fingerprint)
/// and relays `chat` and `ctl` between them unchanged, the PAKE included.
/// The whole code exposes it on both sides; with the six digits alone (or
/// the PAKE hidden) nothing crosses until someone accepts the unproven peer,
/// and the safety words they would compare differ.
@Suite(.ownThread, .serialized) struct MITMTests {
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
    /// falls back and fails at once, even with --accept-unproven; the
    /// creator, a script that did not say --accept-unproven, says why
    /// (`unproven`) and ends having sent nothing: not one line crosses the
    /// server from either side.
    @Test func hidingThePAKEGetsTheServerNotOneLineFromEitherSide() throws {
        let server = try ServerProcess()
        let mitm = try MITMServer(upstream: server, arguments: ["--no-pake-attribute"])
        let alice = try ChildProcess.chatcli(["create", "--server", mitm.url, "--json", "--no-store"], name: "alice")
        let code = try #require(alice.waitForEvent("code")?["code"] as? String, "\(alice.transcript)")
        alice.write("for bob only\n")
        let bob = try ChildProcess.chatcli(["join", code, "--server", mitm.url, "--json", "--no-store", "--accept-unproven"], name: "bob")
        bob.write("for alice only\n")
        let error = try #require(bob.waitForEvent("error", timeout: 60), "\(bob.transcript)\n\(mitm.process.transcript)")
        #expect(error["error"] as? String == "pake_failed", "whatever its flags: \(bob.transcript)")
        #expect(bob.waitForExit(timeout: 20) == 1, "\(bob.transcript)")
        #expect(!bob.stdout.contains { $0.contains(#""event":"connected""#) || $0.contains(#""event":"unproven""#) }, "\(bob.transcript)")
        let unproven = try #require(alice.waitForEvent("unproven", timeout: 60), "\(alice.transcript)\n\(mitm.process.transcript)")
        #expect(unproven["reason"] as? String == "no_pake" && (unproven["sas"] as? String)?.split(separator: " ").count == 5, "\(unproven)")
        let refused = try #require(alice.waitForEvent("error", timeout: 20), "\(alice.transcript)")
        #expect(refused["error"] as? String == "unproven_peer" && (refused["message"] as? String)?.contains("--accept-unproven") == true)
        #expect(alice.waitForExit(timeout: 30) == 1, "\(alice.transcript)")
        #expect(!alice.stdout.contains { $0.contains(#""event":"message""#) || $0.contains(#""event":"connected""#) }, "\(alice.transcript)")
        mitm.expectNothingRelayed()
    }

    /// The six digits alone, both sides scripts without --accept-unproven:
    /// the joiner says why with its safety words and ends at once; the
    /// creator ends too (told so by its PAKE, or by the joiner leaving),
    /// and the server reads nothing from either.
    @Test func theSixDigitsAloneWithoutAcceptUnprovenGetTheServerNothing() throws {
        let server = try ServerProcess()
        let mitm = try MITMServer(upstream: server)
        let alice = try ChildProcess.chatcli(["create", "--server", mitm.url, "--json", "--no-store"], name: "alice")
        let locator = try #require(alice.waitForEvent("code")?["locator"] as? String, "\(alice.transcript)")
        alice.write("hello bob\n")
        let bob = try ChildProcess.chatcli(["join", locator, "--server", mitm.url, "--json", "--no-store"], name: "bob")
        bob.write("hello alice\n")
        let b = try #require(bob.waitForEvent("unproven", timeout: 60), "\(bob.transcript)\n\(mitm.process.transcript)")
        #expect(b["reason"] as? String == "digits_only" && (b["sas"] as? String)?.isEmpty == false, "\(b)")
        #expect(bob.stdout.contains { $0.contains(#""error":"unproven_peer""#) } || bob.waitForEvent("error", timeout: 20)?["error"] as? String == "unproven_peer")
        for p in [alice, bob] {
            #expect(p.waitForExit(timeout: 60) == 1, "\(p.transcript)")
            #expect(!p.stdout.contains { $0.contains(#""event":"message""#) || $0.contains(#""event":"connected""#) }, "\(p.transcript)")
        }
        mitm.expectNothingRelayed()
    }

    /// With --accept-unproven on both sides the chat goes on as the scripts
    /// said it may, read by the server: but each side said `unproven` before
    /// anything crossed, and their safety words differ.
    @Test func withAcceptUnprovenTheChatGoesOnOnlyAfterTheUnprovenEventAndTheWordsDiffer() throws {
        let server = try ServerProcess()
        let mitm = try MITMServer(upstream: server)
        let alice = try ChildProcess.chatcli(["create", "--server", mitm.url, "--json", "--no-store", "--accept-unproven"], name: "alice")
        let locator = try #require(alice.waitForEvent("code")?["locator"] as? String, "\(alice.transcript)")
        let bob = try ChildProcess.chatcli(["join", locator, "--server", mitm.url, "--json", "--no-store", "--accept-unproven"], name: "bob")
        alice.write("hello bob\n")
        bob.write("hello alice\n")
        let a = try #require(alice.waitForEvent("connected", timeout: 60), "\(alice.transcript)\n\(bob.transcript)\n\(mitm.process.transcript)")
        let b = try #require(bob.waitForEvent("connected", timeout: 60), "\(bob.transcript)\n\(mitm.process.transcript)")
        #expect(a["auth"] as? String == "none" && b["auth"] as? String == "none", "the PAKE cannot see it")
        let aliceWords = try #require(a["sas"] as? String), bobWords = try #require(b["sas"] as? String)
        #expect(aliceWords != bobWords, "the safety words expose the server in the middle")
        for p in [alice, bob] {
            // `unproven` (with the words) is the first thing said once the channel is up.
            let events = p.stdout.compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["event"] as? String
            }
            let said = try #require(events.firstIndex(of: "unproven"), "\(p.transcript)")
            #expect(said < (events.firstIndex(of: "connected") ?? 0), "\(p.transcript)")
            let event = try #require(p.waitForEvent("unproven", timeout: 1))
            #expect(event["sas"] as? String == (p === alice ? aliceWords : bobWords))
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

    /// `chatcli send` and `receive` through the server in the middle: with
    /// the whole code both fail the PAKE; with the PAKE hidden the sender
    /// says `unproven` and ends. Either way the server never sees a file
    /// channel, the file's name, or a byte of it.
    @Test(arguments: [false, true])
    func aFileOfferedBeforeTheCodeSettledNeverReachesTheServer(hidePAKE: Bool) throws {
        let server = try ServerProcess()
        let mitm = try MITMServer(upstream: server, arguments: hidePAKE ? ["--no-pake-attribute"] : [])
        let dir = Harness.temporaryDirectory()
        try Data("the plans\n".utf8).write(to: URL(fileURLWithPath: dir + "/secret-plans.txt"))
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        let sender = try ChildProcess.chatcli(["send", dir + "/secret-plans.txt", "--server", mitm.url, "--json"], name: "sender")
        let code = try FileTransferTests.code(sender)
        let receiver = try ChildProcess.chatcli(["receive", code, "--out", dir + "/in", "--yes", "--server", mitm.url, "--json", "--accept-unproven"],
                                                name: "receiver")
        #expect(receiver.waitForExit(timeout: 60) == 1, "\(receiver.transcript)\n\(mitm.process.transcript)")
        #expect(receiver.stdout.contains { $0.contains(#""error":"pake_failed""#) }, "\(receiver.transcript)")
        #expect(sender.waitForExit(timeout: 60) == 1, "\(sender.transcript)")
        let ended = hidePAKE ? #""error":"unproven_peer""# : #""error":"pake_failed""#
        #expect(sender.stdout.contains { $0.contains(ended) }, "\(sender.transcript)")
        #expect(!receiver.stdout.contains { $0.contains(#""direction":"receive""#) }, "no offer shown: \(receiver.transcript)")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: dir + "/in"))?.isEmpty == true)
        mitm.expectNothingRelayed()
        #expect(!mitm.process.transcript.contains("secret-plans"), "\(mitm.process.transcript)")
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

    /// Not one chat line, delivery `hello`, ack or name, and no file
    /// channel, crossed the server from either side (the PAKE's own
    /// messages may have).
    func expectNothingRelayed(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(relayed("chat").isEmpty, "\(process.transcript)", sourceLocation: sourceLocation)
        #expect(relayed("ctl").allSatisfy { $0.text.contains(#""type":"pake""#) }, "\(process.transcript)", sourceLocation: sourceLocation)
        #expect(!process.stdout.contains { $0.contains(#""event": "channel""#) }, "no file channel: \(process.transcript)", sourceLocation: sourceLocation)
    }

    /// Python helpers inherit a blocked SIGTERM: SIGKILL.
    deinit {
        process.signal(SIGKILL)
        _ = process.waitForExit()
    }
}

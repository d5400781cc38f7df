import Foundation
import TestSupport
import Testing

/// The trust gate at a real terminal, through a signaling server that is a
/// man in the middle (`mitm_server.py`): a peer the code did not prove gets
/// nothing — not a typed line, not a `/send` offer — until the person
/// compares the safety words and types `/verify ok`, SSH's unknown-host
/// prompt rather than a warning that scrolls away.
@Suite(.ownThread, .serialized, .enabled(if: TmuxPane.available, "tmux is not installed (Tools/test installs it)"))
struct TrustGateEndToEndTests {
    /// Alice at a terminal creates through `mitm`, without --accept-unproven; her whole code.
    static func alice(_ mitm: MITMServer) throws -> (TmuxPane, code: String) {
        let alice = try InteractiveTests.person("alice", ["create", "--server", mitm.url], acceptUnproven: false)
        let pattern = #"\d{6}-[a-z]+-[a-z]+"#
        let shown = alice.waitFor(timeout: 30) { $0.range(of: "join " + pattern, options: .regularExpression) != nil }
        let code = try #require(shown.screen.range(of: pattern, options: .regularExpression).map { String(shown.screen[$0]) }, "\(shown.screen)")
        return (alice, code)
    }

    @Test func theServerHidingThePAKEGetsNotOneLineOrOfferFromAPersonWhoDidNotAccept() throws {
        let server = try ServerProcess()
        let mitm = try MITMServer(upstream: server, arguments: ["--no-pake-attribute"])
        let (alice, code) = try Self.alice(mitm)
        defer { alice.kill() }
        let dir = Harness.temporaryDirectory()
        try Data("the plans\n".utf8).write(to: URL(fileURLWithPath: dir + "/secret-plans.txt"))
        // Typed and offered before Bob is even there: queued, and never sent.
        alice.enter("for bob only")
        alice.enter("/send \(dir)/secret-plans.txt")
        #expect(alice.waitFor("waiting for your peer to accept").ok, "\(alice.screen())")
        let bob = try ChildProcess.chatcli(["join", code, "--server", mitm.url, "--json", "--no-store"], name: "bob")
        let asked = alice.waitFor("Safety words: ", timeout: 60)
        try #require(asked.ok, "\(asked.screen)\n\(mitm.process.transcript)")
        let unwrapped = asked.screen.replacingOccurrences(of: "\n", with: "")
        #expect(unwrapped.contains("did not prove the code's secret part") && unwrapped.contains("Nothing is sent or shown until you accept"), "\(asked.screen)")
        // Bob typed the whole code: he fails, and Alice hears that he left.
        #expect(bob.waitForExit(timeout: 60) == 1 && bob.stdout.contains { $0.contains(#""error":"pake_failed""#) }, "\(bob.transcript)")
        #expect(alice.waitFor("Your peer left", timeout: 60).ok, "\(alice.screen())\n\(mitm.process.transcript)")
        #expect(!alice.screen().replacingOccurrences(of: "\n", with: "").contains("Connected"), "\(alice.screen())")
        mitm.expectNothingRelayed()
        #expect(!mitm.process.transcript.contains("secret-plans") && !mitm.process.transcript.contains("for bob only"))
    }

    /// Bob (a script with the six digits and --accept-unproven) talks at
    /// once; Alice at her terminal sees none of it and sends nothing until
    /// `/verify ok`, then both ways flow. (Here the words differ and she
    /// should have typed /leave: the server reads what she accepted.)
    @Test func verifyOKAtTheTerminalIsWhatLetsLinesFlow() throws {
        let server = try ServerProcess()
        let mitm = try MITMServer(upstream: server)
        let (alice, code) = try Self.alice(mitm)
        defer { alice.kill() }
        let bob = try ChildProcess.chatcli(["join", String(code.prefix(6)), "--server", mitm.url, "--json", "--no-store", "--accept-unproven"],
                                           name: "bob")
        bob.write("hello alice\n")
        let asked = alice.waitFor("[unverified peer · /verify ok to start] >", timeout: 60)
        try #require(asked.ok, "\(asked.screen)\n\(mitm.process.transcript)")
        alice.enter("typed before accepting")
        // Bob's line reached the server and went on to Alice, who shows nothing of it.
        let bobSide = try #require(mitm.waitForRelay("chat", timeout: 60) { $0 == "hello alice" }, "\(mitm.process.transcript)\n\(bob.transcript)")
        #expect(alice.waitFor("Not sent yet: your peer is not verified").ok, "\(alice.screen())")
        #expect(!alice.screen().contains("peer: hello alice"), "\(alice.screen())")
        #expect(mitm.relayed("chat").allSatisfy { $0.from == bobSide }, "nothing from Alice: \(mitm.process.transcript)")
        let words = try #require(bob.waitForEvent("connected", timeout: 10)?["sas"] as? String)
        #expect(!alice.screen().replacingOccurrences(of: "\n", with: "").contains("Safety words: \(words)"), "Alice's words differ from Bob's")

        alice.enter("/verify ok")
        #expect(alice.waitFor("peer: hello alice", timeout: 30).ok, "\(alice.screen())")
        #expect(bob.waitForMessages(count: 1, timeout: 30) == ["typed before accepting"], "\(bob.transcript)")
        #expect(mitm.waitForRelay("chat") { $0 == "typed before accepting" } != bobSide, "\(mitm.process.transcript)")
        #expect(alice.waitFor("[connected · direct · verified] >").ok, "\(alice.screen())")
    }
}

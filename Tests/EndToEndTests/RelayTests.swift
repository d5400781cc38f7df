import Foundation
import Testing
import TestSupport

/// Chats through a real coturn on 127.0.0.1, with `chatcli serve` handing
/// out TURN REST credentials from the shared secret (CHATCLI_TURN_SECRET).
@Suite(.ownThread, .serialized, .enabled(if: Coturn.isInstalled, "coturn's turnserver is not installed (apt install coturn; Tools/test installs it): TURN relay tests skipped"))
struct RelayTests {
    static func server(_ coturn: Coturn, transports: [String]) throws -> ServerProcess {
        let urls = transports.flatMap { ["--turn-url", "turn:127.0.0.1:\(coturn.port)?transport=\($0)"] }
        return try ServerProcess(arguments: urls, environment: ["CHATCLI_TURN_SECRET": coturn.secret])
    }

    /// `create` on `server` (with `aliceFlags`), then `join` with the code
    /// it prints (with `bobFlags`), both in `--json` mode.
    static func startChat(_ server: ServerProcess, alice aliceFlags: [String] = [], bob bobFlags: [String] = [],
                          environment: [String: String] = [:]) throws -> (alice: ChildProcess, bob: ChildProcess) {
        let alice = try ChildProcess.chatcli(["create", "--server", server.url, "--json"] + aliceFlags, name: "alice", environment: environment)
        let code = try #require(alice.waitForEvent("code")?["code"] as? String, "\(alice.transcript)")
        let bob = try ChildProcess.chatcli(["join", code, "--server", server.url, "--json"] + bobFlags, name: "bob", environment: environment)
        return (alice, bob)
    }

    /// Both peers queue their lines and connect; both `connected` events,
    /// after checking that each side reports the relay as its path.
    static func connectThroughTheRelay(_ alice: ChildProcess, _ bob: ChildProcess, _ coturn: Coturn, fromAlice: [String], fromBob: [String])
        throws -> (alice: [String: Any], bob: [String: Any]) {
        alice.write(ChatTests.lines(fromAlice))
        bob.write(ChatTests.lines(fromBob))
        let connected = try #require(alice.waitForEvent("connected", timeout: 20), "\(alice.transcript)\n\(bob.transcript)\n\(coturn.logTail)")
        let bobConnected = try #require(bob.waitForEvent("connected"), "\(bob.transcript)")
        #expect(connected["path"] as? String == "relay")
        #expect(bobConnected["path"] as? String == "relay")
        return (connected, bobConnected)
    }

    @Test(arguments: ["udp", "tcp"])
    func relayOnlyPeerChatsThroughTheRelay(transport: String) throws {
        let coturn = try Coturn()
        defer { coturn.stop() }
        let server = try Self.server(coturn, transports: [transport])
        let (alice, bob) = try Self.startChat(server, alice: ["--relay-only"])
        let fromAlice = ChatTests.messages("a"), fromBob = ChatTests.messages("b")
        let (connected, bobConnected) = try Self.connectThroughTheRelay(alice, bob, coturn, fromAlice: fromAlice, fromBob: fromBob)
        #expect((connected["local"] as? String)?.hasPrefix("relay 127.0.0.1:") == true, "\(connected)")
        #expect((bobConnected["remote"] as? String)?.hasPrefix("relay 127.0.0.1:") == true, "\(bobConnected)")
        ChatTests().expectExchangeAndLeave(alice, bob, fromAlice: fromAlice, fromBob: fromBob)
    }

    /// A signaling server that hands out no TURN (like Inviso's): each user
    /// names a TURN server with `--ice-server`, credentials in the
    /// environment, and they chat through it.
    @Test func aTURNServerGivenByTheUserRelaysTheChat() throws {
        let coturn = try Coturn()
        defer { coturn.stop() }
        let server = try ServerProcess()
        let (username, password) = coturn.credentials()
        let turn = ["--ice-server", "turn:127.0.0.1:\(coturn.port)?transport=udp"]
        let environment = ["CHATCLI_TURN_USERNAME": username, "CHATCLI_TURN_PASSWORD": password]
        let (alice, bob) = try Self.startChat(server, alice: ["--relay-only"] + turn, bob: ["--relay-only"] + turn, environment: environment)
        let fromAlice = ChatTests.messages("a"), fromBob = ChatTests.messages("b")
        _ = try Self.connectThroughTheRelay(alice, bob, coturn, fromAlice: fromAlice, fromBob: fromBob)
        ChatTests().expectExchangeAndLeave(alice, bob, fromAlice: fromAlice, fromBob: fromBob)
    }

    /// coturn crashes and restarts mid-chat, losing every allocation: the
    /// chat restarts ICE on fresh allocations (the TCP stream reconnects)
    /// and every line typed meanwhile arrives once, in order.
    @Test(arguments: ["udp", "tcp"])
    func aRelayedChatSurvivesARestartOfTheTURNServer(transport: String) throws {
        let coturn = try Coturn()
        defer { coturn.stop() }
        let server = try Self.server(coturn, transports: [transport])
        let (alice, bob) = try Self.startChat(server, alice: ["--relay-only"], bob: ["--relay-only"])
        let both = { "\(alice.transcript.suffix(3000))\n\(bob.transcript.suffix(3000))\n\(coturn.logTail)" }
        try #require(alice.waitForEvent("connected", timeout: 20)?["path"] as? String == "relay", "\(both())")
        alice.write("before\n")
        #expect(bob.waitForMessages(count: 1, timeout: 20) == ["before"], "\(both())")

        try coturn.restart()
        let fromAlice = (0..<20).map { "alice after the TURN restart \($0)" }
        let fromBob = (0..<20).map { "bob after the TURN restart \($0)" }
        alice.write(ChatTests.lines(fromAlice))
        bob.write(ChatTests.lines(fromBob))
        #expect(alice.waitForEvents("connected", count: 2, timeout: 40), "\(both())")
        #expect(bob.waitForMessages(count: 21, timeout: 30) == ["before"] + fromAlice, "\(both())")
        #expect(alice.waitForMessages(count: 20, timeout: 30) == fromBob, "\(both())")
        let reconnected = alice.stdout.filter { $0.hasPrefix(#"{"event":"connected""#) }.last ?? ""
        #expect(reconnected.contains(#""path":"relay""#), "\(reconnected)")
        alice.closeInput()
        #expect(alice.waitForExit(timeout: 20) == 0, "\(both())")
        #expect(bob.waitForEvent("peer_left", timeout: 20) != nil, "\(both())")
        bob.closeInput()
        #expect(bob.waitForExit(timeout: 20) == 0)
    }

    @Test func peersGoDirectWhenTheyCanEvenWithARelayOffered() throws {
        let coturn = try Coturn()
        defer { coturn.stop() }
        let server = try Self.server(coturn, transports: ["udp", "tcp"])
        let (alice, bob) = try RelayTests.startChat(server)
        alice.write("direct\n")
        let connected = try #require(alice.waitForEvent("connected", timeout: 20), "\(alice.transcript)\n\(bob.transcript)")
        #expect(["host", "srflx", "prflx"].contains(connected["path"] as? String ?? ""), "\(connected)")
        #expect(bob.waitForMessages(count: 1) == ["direct"])
        alice.closeInput()
        #expect(alice.waitForExit() == 0, "\(alice.transcript.suffix(2000))")
        bob.closeInput()
        #expect(bob.waitForExit() == 0)
    }
}

/// `chatcli doctor` allocates twice on each TURN server and times a probe
/// that goes out through one relayed address and back through the other.
@Suite(.ownThread, .enabled(if: Coturn.isInstalled, "coturn's turnserver is not installed (apt install coturn; Tools/test installs it): doctor TURN tests skipped"))
struct DoctorTURNTests {
    static func doctor(_ server: ServerProcess, _ extra: [String] = [], environment: [String: String] = [:]) throws -> [String: Any] {
        let doctor = try ChildProcess.chatcli(["doctor", "--server", server.url, "--json"] + extra, name: "doctor", environment: environment)
        let line = try #require(doctor.waitForLine(timeout: 30) { $0.hasPrefix("{") }, "\(doctor.transcript)")
        #expect(doctor.waitForExit() == 0, "\(doctor.transcript)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func doctorReportsTheRelayedAddressAndRoundTripPerServer() throws {
        let coturn = try Coturn()
        defer { coturn.stop() }
        let report = try Self.doctor(try RelayTests.server(coturn, transports: ["udp", "tcp"]))
        let turn = try #require(report["turn"] as? [[String: Any]], "\(report)")
        #expect(turn.count == 2)
        for (entry, transport) in zip(turn, ["udp", "tcp"]) {
            #expect(entry["url"] as? String == "turn:127.0.0.1:\(coturn.port)?transport=\(transport)")
            #expect((entry["relayed"] as? String)?.hasPrefix("127.0.0.1:") == true, "\(entry)")
            let port = UInt16((entry["relayed"] as? String)?.split(separator: ":").last ?? "") ?? 0
            #expect(coturn.relayPorts.contains(port), "\(entry)")
            #expect((entry["rtt_ms"] as? Double).map { $0 >= 0 && $0 < 5000 } == true, "\(entry)")
            #expect(entry["error"] is NSNull, "\(entry)")
        }
    }

    @Test func doctorChecksATURNServerGivenByTheUser() throws {
        let coturn = try Coturn()
        defer { coturn.stop() }
        let (username, password) = coturn.credentials()
        let url = "turn:127.0.0.1:\(coturn.port)?transport=tcp"
        // --no-turn: the server's own relay would be checked too.
        let report = try Self.doctor(try ServerProcess(arguments: ["--no-turn"]), ["--ice-server", url],
                                     environment: ["CHATCLI_TURN_USERNAME": username, "CHATCLI_TURN_PASSWORD": password])
        let turn = try #require(report["turn"] as? [[String: Any]], "\(report)")
        #expect(turn.count == 1)
        #expect(turn.first?["url"] as? String == url)
        #expect((turn.first?["relayed"] as? String)?.hasPrefix("127.0.0.1:") == true, "\(turn)")
        #expect(turn.first?["error"] is NSNull, "\(turn)")
    }

    @Test func doctorReportsRejectedCredentials() throws {
        let coturn = try Coturn()
        defer { coturn.stop() }
        let server = try ServerProcess(arguments: ["--turn-url", "turn:127.0.0.1:\(coturn.port)"],
                                       environment: ["CHATCLI_TURN_SECRET": "not-the-secret"])
        let report = try Self.doctor(server)
        let turn = try #require(report["turn"] as? [[String: Any]], "\(report)")
        #expect(turn.count == 1)
        #expect((turn.first?["error"] as? String)?.contains("rejected the credentials") == true, "\(turn)")
        #expect(turn.first?["rtt_ms"] is NSNull)
    }
}

/// Needs no coturn: the refusal comes before any relay is tried (the server runs none: --no-turn).
@Suite(.ownThread) struct RelayOnlyWithoutTURNTests {
    @Test func relayOnlyWithoutATURNServerFailsClearly() throws {
        let server = try ServerProcess(arguments: ["--no-turn"])
        let (alice, bob) = try RelayTests.startChat(server, alice: ["--relay-only"])
        let error = try #require(alice.waitForEvent("error", timeout: 20), "\(alice.transcript)")
        #expect(error["error"] as? String == "connection_failed")
        #expect((error["message"] as? String)?.contains("--relay-only needs a TURN server") == true, "\(error)")
        #expect(alice.waitForExit() == 1)
        bob.stop()
    }
}

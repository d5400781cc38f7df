import Foundation
import TestSupport
import Testing

/// Every bad input gives one clear sentence and the right exit code; never a
/// crash, a hang or a stack trace.
@Suite(.ownThread) struct BadInputTests {
    func run(_ args: [String], env: [String: String] = [:]) throws -> (status: Int32?, process: ChildProcess) {
        let p = try ChildProcess.chatcli(args, name: "chatcli \(args.first ?? "")", environment: env)
        p.closeInput()
        return (p.waitForExit(timeout: 20), p)
    }

    @Test(arguments: ["12345", "1234567", "abcdef", "12a456", ""])
    func malformedCodeIsAUsageError(code: String) throws {
        let (status, p) = try run(["join", code, "--server", "http://127.0.0.1:9"])
        #expect(status == 2, "\(p.transcript)")
        #expect(p.stderr.contains { $0.contains("is not a join code") }, "\(p.transcript)")
    }

    /// A server on this host sees this host's own loopback address: that is
    /// no public address, and says nothing about the NAT (issue 29).
    @Test func doctorAgainstALoopbackServerDoesNotCallItAPublicAddress() throws {
        let server = try ServerProcess()
        let doctor = try ChildProcess.chatcli(["doctor", "--server", server.url], name: "doctor")
        let line = doctor.waitForLine(timeout: 30) { $0.hasPrefix("NAT:") }
        #expect(line?.contains("not a public one") == true, "\(doctor.transcript)")
        #expect(!doctor.transcript.contains("has a public address"), "\(doctor.transcript)")
        #expect(doctor.waitForExit(timeout: 30) == 0, "\(doctor.transcript)")
    }

    @Test func unreachableServerSaysHowToStartOne() throws {
        let port = Harness.freePort()
        let (status, p) = try run(["join", "123456", "--server", "http://127.0.0.1:\(port)"])
        #expect(status == 1, "\(p.transcript)")
        #expect(p.stderr.count == 1 && p.stderr[0].contains("chatcli serve"), "\(p.transcript)")
    }

    @Test func serverFromEnvironmentIsUsed() throws {
        let port = Harness.freePort()
        let (status, p) = try run(["create"], env: ["CHATCLI_SERVER": "http://127.0.0.1:\(port)"])
        #expect(status == 1, "\(p.transcript)")
        #expect(p.stderr.joined().contains("127.0.0.1:\(port)"), "\(p.transcript)")
    }

    @Test func unknownCodeIsOneSentence() throws {
        let server = try ServerProcess()
        let (status, p) = try run(["join", "000000", "--server", server.url, "--json"])
        #expect(status == 1, "\(p.transcript)")
        #expect(p.stdout.contains { $0.contains(#""error":"not_found_or_expired""#) }, "\(p.transcript)")
    }

    /// TURN credentials never go on the command line; TLS URLs and unknown
    /// transports are refused before anything starts.
    @Test(arguments: [
        (["create", "--ice-server", "turn:127.0.0.1:3478"], "CHATCLI_TURN_USERNAME and CHATCLI_TURN_PASSWORD"),
        (["join", "123456", "--ice-server", "turns:relay.example:5349?transport=udp"], "TURN over DTLS is not supported"),
        (["join", "123456", "--ice-server", "stuns:stun.example:5349"], "stuns: is not supported"),
        (["create", "--ice-server", "turn:127.0.0.1:3478?transport=sctp"], "TURN transport must be udp or tcp"),
        (["create", "--ice-server", "http://127.0.0.1:3478"], "is not a STUN/TURN URL"),
    ])
    func badICEServersAreUsageErrors(args: [String], message: String) throws {
        let (status, p) = try run(args + ["--server", "http://127.0.0.1:9"])
        #expect(status == 2, "\(p.transcript)")
        #expect(p.stderr.count == 1 && p.stderr[0].contains(message), "\(p.transcript)")
    }

    @Test(arguments: [
        ["create", "--expires", "10"], ["create", "--expires", "abc"], ["create", "--bogus"], ["join"],
        ["join", "123456", "extra"], ["frobnicate"], ["create", "--server", "ftp://x"], ["serve", "--port", "70000"],
        ["serve", "--port"], ["serve", "--tls-cert", "/nonexistent.pem"], ["serve", "--turn-members-only", "--no-turn"],
        ["serve", "--turn-url", "turn:relay.example:99999"], ["serve", "--turn-url", "turn:"],
        ["serve", "--turn-url", "turn:relay.example:3478?transport=sctp"], ["serve", "--turn-url", "turns:relay.example?transport=udp"],
        ["serve", "--turn-url", "turn:relay.example:3478", "--turn-secret-file", "/nonexistent"],
        ["serve", "--turn-allow-peer", "300.0.0.0/8"], ["serve", "--turn-allow-peer", "10.0.0.0/33"], ["serve", "--turn-relay-ports", "5-1"],
        ["serve", "--no-turn", "--turn-allow-peer", "10.0.0.0/8"], ["serve", "--metrics-listen", "localhost"], ["serve", "--log-format", "xml"],
    ])
    func usageErrorsExitTwo(args: [String]) throws {
        let (status, p) = try run(args)
        #expect(status == 2, "\(p.transcript)")
        #expect(p.stderr.first?.hasPrefix("chatcli: ") == true, "\(p.transcript)")
    }

    @Test(arguments: ["serve", "create", "join"])
    func everyCommandHasHelp(command: String) throws {
        let (status, p) = try run([command, "--help"])
        #expect(status == 0, "\(p.transcript)")
        #expect(p.stdout.first?.hasPrefix("Usage: chatcli \(command)") == true, "\(p.transcript)")
    }

    @Test func secondJoinerIsTurnedAway() throws {
        let server = try ServerProcess()
        let alice = try ChildProcess.chatcli(["create", "--server", server.url, "--json"], name: "alice")
        let code = try #require(alice.waitForEvent("code")?["code"] as? String, "\(alice.transcript)")
        let bob = try ChildProcess.chatcli(["join", code, "--server", server.url, "--json"], name: "bob")
        #expect(bob.waitForEvent("peer_joined") != nil, "\(bob.transcript)")
        let (status, carol) = try run(["join", code, "--server", server.url])
        #expect(status == 1, "\(carol.transcript)")
        #expect(carol.stderr.joined().contains("already joined"), "\(carol.transcript)")
        alice.closeInput(); bob.closeInput()
        _ = alice.waitForExit(); _ = bob.waitForExit()
    }
}

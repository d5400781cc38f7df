import Foundation
import TestSupport
import Testing

/// Limits per client through the real `chatcli serve` (WireProtocol §1): a
/// client is an IPv4 address, or an IPv6 /64, or behind `--trusted-proxy`
/// the forwarded address by the same rule. 127.0.0.2 and 127.0.0.3 are
/// other clients than 127.0.0.1 on this machine's loopback.
@Suite(.ownThread) struct ClientLimitTests {
    static func miss(_ server: ServerProcess, source: String? = nil, forwardedFor: String? = nil) -> HTTPExchange {
        HTTPExchange.send("POST", port: server.port, "/api/rooms/accept", ["joinid": "000000", "client2": "guesser-device"],
                          source: source, headers: forwardedFor.map { "X-Forwarded-For: \($0)\r\n" } ?? "")
    }

    static func create(_ server: ServerProcess, _ code: String, source: String) -> HTTPExchange {
        HTTPExchange.send("POST", port: server.port, "/api/rooms", ["joinid": code, "expiresInSeconds": 600, "client1": "creator-device"], source: source)
    }

    @Test func serveHelpStatesTheLimitsAndTheirDefaults() throws {
        let help = try ChildProcess.chatcli(["serve", "--help"], name: "help")
        #expect(help.waitForExit() == 0)
        let text = help.stdout.joined(separator: "\n")
        for line in ["--create-limit N          Rooms one client may create per hour (default 60).",
                     "--connection-limit N      Connections one client may hold open at once (default 100).",
                     "--max-rooms N             Live rooms above which creating answers 503 code_space_full (default 100000).",
                     "an IPv4 address or an IPv6 /64", "past 256 KiB of unsent output (or 32 MiB for all clients together)"] {
            #expect(text.contains(line), "\(line)")
        }
        let zero = try ChildProcess.chatcli(["serve", "--create-limit", "0"], name: "serve")
        #expect(zero.waitForExit() == 2)
        #expect(zero.stderr == ["chatcli: --create-limit takes a positive number, not '0'"])
    }

    @Test func wrongGuessesCountPerIPv4Address() throws {
        let server = try ServerProcess()
        for _ in 0..<10 { #expect(Self.miss(server, source: "127.0.0.2").status == 404) }
        let limited = Self.miss(server, source: "127.0.0.2")
        #expect(limited.status == 429 && limited.body["error"] as? String == "rate_limited" && limited.header("Retry-After") != nil)
        #expect(Self.miss(server, source: "127.0.0.3").status == 404)
    }

    /// Before: each address of a /64 (and each forwarded address) had a limit of its own.
    @Test func behindATrustedProxyWrongGuessesCountPerForwardedIPv6Slash64() throws {
        let server = try ServerProcess(arguments: ["--trusted-proxy", "127.0.0.1"])
        for i in 1...10 { #expect(Self.miss(server, forwardedFor: "2001:db8:1:2::\(i)").status == 404) }
        #expect(Self.miss(server, forwardedFor: "203.0.113.5, 2001:db8:1:2:ffff::99").status == 429, "the same /64")
        #expect(Self.miss(server, forwardedFor: "2001:db8:1:3::1").status == 404, "the next /64 is another client")
        #expect(Self.miss(server, forwardedFor: "198.51.100.7").status == 404)
        #expect(Self.miss(server, source: "127.0.0.2", forwardedFor: "2001:db8:1:3::1").status == 404,
                "an untrusted peer's header is ignored: it counts as 127.0.0.2")
    }

    /// Before: 3,400–5,850 creations a second from one address.
    @Test func roomCreationsPerClientAreLimitedAndOthersStillCreate() throws {
        let server = try ServerProcess(arguments: ["--create-limit", "3"])
        for code in ["100001", "100002", "100003"] { #expect(Self.create(server, code, source: "127.0.0.2").status == 201) }
        let limited = Self.create(server, "100004", source: "127.0.0.2")
        #expect(limited.status == 429, "\(limited.head)")
        #expect(limited.body["error"] as? String == "rate_limited")
        #expect(Int(limited.header("Retry-After") ?? "") ?? 0 > 3000, "free an hour after the first")
        #expect(Self.create(server, "100004", source: "127.0.0.3").status == 201)
    }

    @Test func aNearlyFullCodeSpaceIsRefusedWithCodeSpaceFull() throws {
        let server = try ServerProcess(arguments: ["--max-rooms", "2"])
        #expect(Self.create(server, "200001", source: "127.0.0.2").status == 201)
        #expect(Self.create(server, "200002", source: "127.0.0.3").status == 201)
        let full = Self.create(server, "200003", source: "127.0.0.4")
        #expect(full.status == 503, "\(full.head)")
        #expect(full.body["error"] as? String == "code_space_full")
        #expect(full.header("Retry-After") == "60")
    }

    /// Before: one address held 1,010 WebSockets at a 1,024-descriptor limit
    /// and `/healthz` failed for everyone.
    @Test func connectionsPerClientAreCappedAndOtherClientsAreStillServed() throws {
        let server = try ServerProcess(arguments: ["--connection-limit", "5"])
        var held: [RawClient] = []
        for _ in 0..<5 {
            let client = try #require(RawClient(port: server.port, source: "127.0.0.2"))
            #expect(client.upgradeToWebSocket(port: server.port))
            held.append(client)
        }
        let refused = try #require(RawClient(port: server.port, source: "127.0.0.2"))
        #expect(refused.waitUntilClosedByPeer(timeout: 30), "the sixth is closed at once")
        #expect(server.process.waitForLine(stderr: true) { $0.contains("connection limit") } != nil, "\(server.process.transcript)")
        #expect(HTTPExchange.send("GET", port: server.port, "/healthz", source: "127.0.0.3").status == 200)
        #expect(HTTPExchange.send("GET", port: server.port, "/healthz").status == 200)
        withExtendedLifetime(held) {}
    }

    @Test func behindATrustedProxyConnectionsCountPerForwardedClient() throws {
        let server = try ServerProcess(arguments: ["--connection-limit", "2", "--trusted-proxy", "127.0.0.1"])
        var held: [RawClient] = []
        for _ in 0..<2 {
            let client = try #require(RawClient(port: server.port))
            client.send(Array("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 2001:db8:7:7::1\r\n\r\n".utf8))
            #expect(String(decoding: client.read { String(decoding: $0, as: UTF8.self).hasSuffix("}") }, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
            held.append(client)
        }
        let third = HTTPExchange.send("GET", port: server.port, "/healthz", headers: "X-Forwarded-For: 2001:db8:7:7::2\r\n")
        #expect(third.status == 429, "\(third.head)")
        #expect(third.body["error"] as? String == "too_many_connections")
        #expect(HTTPExchange.send("GET", port: server.port, "/healthz", headers: "X-Forwarded-For: 2001:db8:7:8::1\r\n").status == 200)
        withExtendedLifetime(held) {}
    }
}

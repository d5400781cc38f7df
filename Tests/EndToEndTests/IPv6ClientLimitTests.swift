import Foundation
import TestSupport
import Testing

/// The wrong-code limit per IPv6 /64 with real IPv6 clients: a network
/// namespace of its own (needs root) whose loopback carries three addresses,
/// two in 2001:db8:1:2::/64 and one in the next /64, and a `chatcli serve
/// --host ::` in it. Before: each address had a limit of its own.
@Suite(.ownThread) struct IPv6ClientLimitTests {
    static let namespace = "ccv6x\(getpid() % 100_000)"

    /// Runs `command` with /bin/sh; its stdout, or nil when it failed.
    @discardableResult
    static func sh(_ command: String) -> String? {
        guard let child = try? ChildProcess("/bin/sh", ["-c", command], name: "sh") else { return nil }
        guard child.waitForExit(timeout: 30) == 0 else { return nil }
        return child.stdout.joined(separator: "\n")
    }

    /// `POST /api/rooms/accept` for an unknown code from `source`; the HTTP status.
    static func miss(from source: String, port: UInt16) -> Int {
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_INET6); s.bind((sys.argv[1], 0)); s.connect(("2001:db8:1:2::1", int(sys.argv[2])))
            body = b'{"joinid":"000000","client2":"guesser-device"}'
            s.sendall(b"POST /api/rooms/accept HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\nContent-Type: application/json\\r\\nContent-Length: %d\\r\\n\\r\\n" % len(body) + body)
            print(s.recv(64).split(b" ")[1].decode())
            """
        let quoted = script.replacingOccurrences(of: "'", with: "'\\''")
        return sh("ip netns exec \(namespace) python3 -c '\(quoted)' \(source) \(port)").flatMap { Int($0) } ?? 0
    }

    @Test func wrongGuessesFromTwoAddressesOfOneSlash64ShareOneLimit() throws {
        let ns = Self.namespace
        Self.sh("ip netns del \(ns) 2>/dev/null")
        try #require(Self.sh("ip netns add \(ns) && ip -n \(ns) link set lo up"
            + " && ip -n \(ns) addr add 2001:db8:1:2::1/64 dev lo nodad && ip -n \(ns) addr add 2001:db8:1:2::2/64 dev lo nodad"
            + " && ip -n \(ns) addr add 2001:db8:1:3::1/64 dev lo nodad") != nil, "cannot make the namespace (root needed)")
        defer { Self.sh("ip netns del \(ns)") }
        let port: UInt16 = 8080
        let db = Harness.temporaryDirectory() + "/rooms.db"
        let server = try ChildProcess("/usr/sbin/ip", ["netns", "exec", ns, Harness.chatcliPath, "serve", "--host", "::", "--port", "\(port)",
                                                       "--stun-port", "3478", "--db", db], name: "server")
        defer { server.stop() }
        try #require(server.waitForLine(stderr: true, timeout: 15) { $0.contains("listening") } != nil, "\(server.transcript)")
        for i in 0..<10 { #expect(Self.miss(from: i % 2 == 0 ? "2001:db8:1:2::1" : "2001:db8:1:2::2", port: port) == 404) }
        #expect(Self.miss(from: "2001:db8:1:2::2", port: port) == 429, "both addresses are one client: \(server.transcript)")
        #expect(Self.miss(from: "2001:db8:1:2::1", port: port) == 429)
        #expect(Self.miss(from: "2001:db8:1:3::1", port: port) == 404, "the next /64 is another client")
    }
}

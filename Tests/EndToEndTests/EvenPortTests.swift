import Foundation
import Testing
import TestSupport

/// EVEN-PORT (RFC 8656 §7.2) on a machine whose kernel hands out only odd
/// ports: a network namespace of its own (needs root) whose ephemeral
/// range is the single port 40001. serve must find an even neighbour
/// rather than ask the kernel again, which gives the same odd port back.
/// Before: 508 (Insufficient Capacity), as coturn's test client met in CI.
@Suite(.ownThread) struct EvenPortTests {
    static let namespace = "ccevenx\(getpid() % 100_000)"

    @Test func anEvenRelayedPortIsFoundWhenTheKernelOffersOnlyAnOddOne() throws {
        let ns = Self.namespace, sh = IPv6ClientLimitTests.sh
        _ = sh("ip netns del \(ns) 2>/dev/null")
        try #require(sh("ip netns add \(ns) && ip -n \(ns) link set lo up") != nil, "cannot make the namespace (root needed)")
        defer { _ = sh("ip netns del \(ns)") }
        let db = Harness.temporaryDirectory() + "/rooms.db"
        let server = try ChildProcess("/usr/sbin/ip", ["netns", "exec", ns, Harness.chatcliPath, "serve", "--port", "8080", "--stun-port", "3478",
                                                       "--db", db, "--turn-allow-peer", "127.0.0.0/8"], name: "server")
        defer { server.stop() }
        try #require(server.waitForLine(stderr: true, timeout: 15) { $0.contains("listening") } != nil, "\(server.transcript)")
        let script = "import json, urllib.request; t = [s for s in json.load(urllib.request.urlopen('http://127.0.0.1:8080/api/ice-servers'))"
            + "['iceServers'] if 'username' in s][0]; print(t['username']); print(t['credential'])"
        let lines = try #require(sh("ip netns exec \(ns) python3 -c \"\(script)\""), "\(server.transcript)").split(separator: "\n")
        try #require(lines.count == 2, "\(lines)")
        // The probes take their own ports first; then the namespace has one ephemeral port left, an odd one.
        let probes = try Self.inNamespace(ns) { try (0..<2).map { _ in try TURNProbe(port: 3478) } }
        try #require(sh("ip netns exec \(ns) sysctl -q -w net.ipv4.ip_local_port_range='40001 40001'") != nil)
        var ports: [UInt16] = []
        for probe in probes {
            #expect(try probe.allocate(username: String(lines[0]), password: String(lines[1]), evenPort: true) == 0, "\(server.transcript)")
            ports += probe.relayed.map { [$0.port] } ?? []
        }
        #expect(Set(ports) == [40000, 40002], "even neighbours of the kernel's only port: \(ports)")
    }

    /// Runs `body` on a thread of its own that has entered namespace `name`,
    /// so the sockets it makes live there (setns changes only that thread).
    /// The caller waits for the thread, so `body` and its result never run
    /// or are touched on two threads at once (hence the unchecked transfer).
    static func inNamespace<T>(_ name: String, _ body: @escaping () throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) let work = body
        nonisolated(unsafe) var result: Result<T, any Error> = .failure(NamespaceError.cannotEnter(name))
        let thread = Thread {
            defer { done.signal() }
            let fd = open("/var/run/netns/\(name)", O_RDONLY)
            guard fd >= 0 else { return }
            defer { close(fd) }
            // setns(2) needs _GNU_SOURCE, which Glibc's Swift module does not define.
            typealias SetNS = @convention(c) (Int32, Int32) -> Int32
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setns"),
                  unsafeBitCast(symbol, to: SetNS.self)(fd, 0x4000_0000 /* CLONE_NEWNET */) == 0 else { return }
            result = Result { try work() }
        }
        thread.start()
        done.wait()
        return try result.get()
    }

    enum NamespaceError: Error { case cannotEnter(String) }
}

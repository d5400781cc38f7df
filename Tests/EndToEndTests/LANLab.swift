import Foundation
import Testing

/// Network namespaces on one veth pair (198.18.9.0/24, no route anywhere
/// else, no signaling server) with multicast up and a 224.0.0.0/4 route,
/// for the `--lan` tests. Needs root; removed when released.
final class LANLab {
    let left: String
    let right: String
    let leftLink: String
    let rightLink: String
    private static let counter = LANCounter()

    init(ipv4: Bool = true) throws {
        let tag = "\(getpid() % 100_000)x\(Self.counter.next())"
        left = "l2A\(tag)"
        right = "l2B\(tag)"
        leftLink = "l2va\(tag)"
        rightLink = "l2vb\(tag)"
        try sh("ip netns add \(left) && ip netns add \(right)")
        for ns in [left, right] {
            // No duplicate address detection: link-local IPv6 is usable at once.
            try sh("ip netns exec \(ns) sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 && ip -n \(ns) link set lo up")
        }
        try sh("ip link add \(leftLink) netns \(left) type veth peer name \(rightLink) netns \(right)")
        for (ns, link, ip) in [(left, leftLink, "198.18.9.1"), (right, rightLink, "198.18.9.2")] {
            if ipv4 { try sh("ip -n \(ns) addr add \(ip)/24 dev \(link)") }
            try sh("ip -n \(ns) link set \(link) up multicast on && ip -n \(ns) route add 224.0.0.0/4 dev \(link)"
                   + (ipv4 ? "" : " || true"))
        }
    }

    deinit {
        for ns in [left, right] {
            for pid in (try? output("ip netns pids \(ns)"))?.split(separator: "\n") ?? [] { kill(Int32(pid) ?? 0, SIGKILL) }
        }
        _ = try? sh("ip netns del \(left); ip netns del \(right)")
    }

    /// `chatcli ARGS` in `ns`.
    func chatcli(_ ns: String, _ arguments: [String], name: String, environment: [String: String] = [:]) throws -> ChildProcess {
        try ChildProcess("/usr/sbin/ip", ["netns", "exec", ns, Harness.chatcliPath] + arguments, name: name, environment: environment)
    }

    func exec(_ ns: String, _ command: [String], name: String, environment: [String: String] = [:]) throws -> ChildProcess {
        try ChildProcess("/usr/sbin/ip", ["netns", "exec", ns] + command, name: name, environment: environment)
    }

    @discardableResult
    func sh(_ command: String) throws -> Int32 {
        let child = try ChildProcess("/bin/sh", ["-c", command], name: command)
        guard let status = child.waitForExit(timeout: 30), status == 0 else { throw LANLabError(transcript: child.transcript) }
        return status
    }

    func output(_ command: String) throws -> String {
        let child = try ChildProcess("/bin/sh", ["-c", command], name: command)
        _ = child.waitForExit(timeout: 30)
        return child.stdout.joined(separator: "\n")
    }
}

struct LANLabError: Error, CustomStringConvertible {
    let transcript: String
    var description: String { "lab setup failed\n\(transcript)" }
}

private final class LANCounter: @unchecked Sendable {
    // @unchecked: guarded by the lock.
    private let lock = NSLock()
    private var value = 0
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

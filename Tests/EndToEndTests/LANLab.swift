import Foundation
import Testing

/// Network namespaces on one veth pair (198.18.9.0/24, no route anywhere
/// else, no signaling server) with multicast up and a 224.0.0.0/4 route,
/// for the `--lan` tests; with more than two hosts, each is wired to a
/// bridge in a namespace of its own (multicast snooping off, so mDNS floods
/// as on a home switch). Host i has 198.18.9.(i+1). Needs root; removed
/// when released.
final class LANLab {
    let hosts: [String]
    let links: [String]
    private let others: [String]
    private static let counter = Counter()
    let tag: String

    /// Namespaces of runs killed before their `deinit` (the process id in
    /// the name no longer exists) are removed, so they do not pile up.
    private static func removeAbandonedLabs() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/var/run/netns")) ?? []
        for name in names {
            guard let match = name.wholeMatch(of: /^ccl[A-Z](\d+)x\d+$/), let pid = Int32(match.1),
                  kill(pid, 0) != 0 && errno == ESRCH
            else { continue }
            _ = try? ChildProcess("/bin/sh", ["-c", "ip netns del \(name)"], name: "ip netns del").waitForExit(timeout: 30)
        }
    }

    var left: String { hosts[0] }
    var right: String { hosts[1] }
    var leftLink: String { links[0] }
    var rightLink: String { links[1] }

    init(ipv4: Bool = true, hosts count: Int = 2) throws {
        let tag = "\(getpid() % 100_000)x\(Self.counter.next())"
        self.tag = tag
        Self.removeAbandonedLabs()
        hosts = (0..<count).map { "ccl\(Character(UnicodeScalar(UInt8(65 + $0))))\(tag)" }
        links = (0..<count).map { "cclv\(Character(UnicodeScalar(UInt8(97 + $0))))\(tag)" }
        others = count > 2 ? ["cclS\(tag)"] : []
        for ns in hosts + others {
            try sh("ip netns add \(ns)")
            // No duplicate address detection: link-local IPv6 is usable at once.
            try sh("ip netns exec \(ns) sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 && ip -n \(ns) link set lo up")
        }
        if let bridgeHost = others.first {
            try sh("ip -n \(bridgeHost) link add br0 type bridge mcast_snooping 0 && ip -n \(bridgeHost) link set br0 up")
            for (index, (ns, link)) in zip(hosts, links).enumerated() {
                let port = "cclp\(index)\(tag)"
                try sh("ip link add \(link) netns \(ns) type veth peer name \(port) netns \(bridgeHost)"
                       + " && ip -n \(bridgeHost) link set \(port) master br0 up")
            }
        } else {
            try sh("ip link add \(links[0]) netns \(hosts[0]) type veth peer name \(links[1]) netns \(hosts[1])")
        }
        for (index, (ns, link)) in zip(hosts, links).enumerated() {
            if ipv4 { try sh("ip -n \(ns) addr add 198.18.9.\(index + 1)/24 dev \(link)") }
            try sh("ip -n \(ns) link set \(link) up multicast on && ip -n \(ns) route add 224.0.0.0/4 dev \(link)"
                   + (ipv4 ? "" : " || true"))
        }
    }

    /// A second veth pair between the first two hosts, named like a
    /// container bridge on each side (`leftName` in the left host,
    /// `rightName` in the right one), on `subnet`.0/24 (.1 and .2).
    func addVirtualLink(_ leftName: String, _ rightName: String, subnet: String) throws {
        try sh("ip link add \(leftName) netns \(left) type veth peer name \(rightName) netns \(right)")
        for (index, (ns, link)) in [(left, leftName), (right, rightName)].enumerated() {
            try sh("ip -n \(ns) addr add \(subnet).\(index + 1)/24 dev \(link) && ip -n \(ns) link set \(link) up multicast on")
        }
    }

    deinit {
        for ns in hosts + others {
            for pid in (try? output("ip netns pids \(ns)"))?.split(separator: "\n") ?? [] { kill(Int32(pid) ?? 0, SIGKILL) }
        }
        _ = try? sh((hosts + others).map { "ip netns del \($0)" }.joined(separator: "; "))
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

import Foundation
import Testing

/// One `Tools/natlab` lab for a test: the namespaces, then `natlab serve`
/// (the chat server on 198.18.0.10:8080 and, with `turn`, a real coturn on
/// 198.18.0.12:3478), all torn down by `natlab down` when released, even
/// after a failure. Needs root.
final class NATLab {
    static let script = Harness.packageRoot + "/Tools/natlab"
    static let serverIP = "198.18.0.10"
    static let serverURL = "http://\(serverIP):8080"
    static let coturnInstalled = ["/usr/bin/turnserver", "/usr/local/bin/turnserver", "/usr/sbin/turnserver"]
        .contains { FileManager.default.isExecutableFile(atPath: $0) }

    let prefix: String
    /// Hosts that reach the server over IPv6 only (an IPv6-only side).
    private var ipv6OnlyHosts: Set<String> = []
    /// For every process run in the lab (`upnp`: port mapping on).
    /// For every process the lab starts (e.g. `CHATCLI_DEBUG_SESSION` for a test that keeps a trace).
    var environment: [String: String] = [:]
    private static let counter = Counter()

    /// `options`: extra `natlab up` arguments such as `--delay-ms 50`.
    init(left: String, right: String = "none", options: [String] = [], turn: Bool = false) throws {
        // Unique per lab: suites run in parallel and may want the same pair.
        prefix = "cc\(left.prefix(3))\(right.prefix(3))\(getpid() % 100_000)x\(Self.counter.next())"
        Self.removeAbandonedLabs()
        try run(["up", "--prefix", prefix, "--left", left, "--right", right] + options)
        try run(["serve", "--prefix", prefix, "--chatcli", Harness.chatcliPath] + (turn ? [] : ["--no-turn"]))
    }

    /// A named scenario (`natlab up --scenario NAME`, `natlab scenarios`),
    /// with coturn unless `turn` is false.
    init(scenario: String, options: [String] = [], turn: Bool = true) throws {
        let letters = String((scenario.filter(\.isLetter) + "xxxxxx").prefix(6))
        prefix = "cc\(letters)\(getpid() % 100_000)x\(Self.counter.next())"
        if scenario.hasPrefix("ipv6-to") || scenario == "ipv6-only" { ipv6OnlyHosts = ["left"] }
        if scenario == "upnp" { environment["CHATCLI_PORT_MAPPING"] = "on" }
        Self.removeAbandonedLabs()
        try run(["up", "--prefix", prefix, "--scenario", scenario] + options)
        try run(["serve", "--prefix", prefix, "--chatcli", Harness.chatcliPath] + (turn ? [] : ["--no-turn"]))
    }

    /// The chat server as `host` reaches it.
    func serverURL(for host: String) -> String {
        ipv6OnlyHosts.contains(host) ? "http://[2001:db8::10]:8080" : Self.serverURL
    }

    /// A `natlab` subcommand for this lab (`up`, `serve`, `block left`, …);
    /// throws with its output if it fails.
    func run(_ arguments: [String], timeout: TimeInterval = 60) throws {
        let child = try ChildProcess(Self.script, arguments, name: "natlab \(arguments[0])")
        guard child.waitForExit(timeout: timeout) == 0 else { throw NATLabError(transcript: child.transcript) }
    }

    func exec(_ host: String, _ command: [String], name: String) throws -> ChildProcess {
        try ChildProcess(Self.script, ["exec", "--prefix", prefix, host, "--"] + command, name: name, environment: environment)
    }

    /// `chatcli create` / `join` on `host` against the lab's server, in `--json` mode.
    func chatcli(_ host: String, _ arguments: [String], name: String) throws -> ChildProcess {
        try exec(host, [Harness.chatcliPath] + arguments + ["--server", serverURL(for: host), "--json", "--no-store"], name: name)
    }

    /// `create` on left and `join` on right (with `joinFlags`), both `connected`.
    func connectedChat(joinFlags: [String] = []) throws -> (alice: ChildProcess, bob: ChildProcess) {
        let alice = try chatcli("left", ["create"], name: "alice")
        let code = try #require(alice.waitForEvent("code", timeout: 20)?["code"] as? String, "\(alice.transcript)")
        let bob = try chatcli("right", ["join", code] + joinFlags, name: "bob")
        try #require(alice.waitForEvent("connected", timeout: 30) != nil, "\(alice.transcript)\n\(bob.transcript)")
        try #require(bob.waitForEvent("connected", timeout: 10) != nil, "\(bob.transcript)")
        return (alice, bob)
    }

    deinit { try? run(["down", "--prefix", prefix]) }

    /// Labs of test runs that were killed before their `deinit` (the
    /// process id in the prefix no longer exists) are taken down, so they
    /// do not pile up across runs. Only this suite's own prefixes match.
    private static func removeAbandonedLabs() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/var/run/netns")) ?? []
        let pattern = /^cc[a-z]{6}(\d+)x\d+-pub$/
        for name in names {
            guard let match = name.wholeMatch(of: pattern), let pid = Int32(match.1),
                  kill(pid, 0) != 0 && errno == ESRCH
            else { continue }
            let child = try? ChildProcess(script, ["down", "--prefix", String(name.dropLast(4))], name: "natlab down (abandoned)")
            _ = child?.waitForExit(timeout: 60)
        }
    }
}

struct NATLabError: Error, CustomStringConvertible {
    let transcript: String
    var description: String { "natlab failed\n\(transcript)" }
}

/// A number per call, from any thread (lab prefixes).
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

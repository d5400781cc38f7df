import Foundation

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

    /// `options`: extra `natlab up` arguments such as `--delay-ms 50`.
    init(left: String, right: String = "none", options: [String] = [], turn: Bool = false) throws {
        // Unique per lab: suites run in parallel and two may build the same pair.
        prefix = "cc\(left.prefix(3))\(right.prefix(3))\(getpid() % 100_000)x\(String(UInt16.random(in: 0...UInt16.max), radix: 16))"
        try run(["up", "--prefix", prefix, "--left", left, "--right", right] + options)
        try run(["serve", "--prefix", prefix, "--chatcli", Harness.chatcliPath] + (turn ? [] : ["--no-turn"]))
    }

    /// A `natlab` subcommand for this lab (`up`, `serve`, `block left`, …);
    /// throws with its output if it fails.
    func run(_ arguments: [String], timeout: TimeInterval = 60) throws {
        let child = try ChildProcess(Self.script, arguments, name: "natlab \(arguments[0])")
        guard child.waitForExit(timeout: timeout) == 0 else { throw NATLabError(transcript: child.transcript) }
    }

    func exec(_ host: String, _ command: [String], name: String) throws -> ChildProcess {
        try ChildProcess(Self.script, ["exec", "--prefix", prefix, host, "--"] + command, name: name)
    }

    /// `chatcli create` / `join` on `host` against the lab's server, in `--json` mode.
    func chatcli(_ host: String, _ arguments: [String], name: String) throws -> ChildProcess {
        try exec(host, [Harness.chatcliPath] + arguments + ["--server", Self.serverURL, "--json", "--no-store"], name: name)
    }

    deinit { try? run(["down", "--prefix", prefix]) }
}

struct NATLabError: Error, CustomStringConvertible {
    let transcript: String
    var description: String { "natlab failed\n\(transcript)" }
}

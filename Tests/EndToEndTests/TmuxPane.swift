import Foundation
import TestSupport

/// One real terminal for an interactive `chatcli`: a detached tmux session
/// of fixed size on its own server socket (`tmux -L`), driven with
/// `send-keys` and read with `capture-pane`. Tests poll the screen with
/// deadlines; `kill()` (or deinit) ends that tmux server and nothing else.
final class TmuxPane {
    static let executable: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static var available: Bool { executable != nil }

    let socket: String
    let session = "chat"
    let name: String

    /// Starts `command` (argv) with `environment` added, in a 120×40
    /// terminal; its exit status is printed below it when it ends.
    init(name: String, command: [String], environment: [String: String]) throws {
        self.name = name
        socket = "chatcli-test-\(name)-\(UUID().uuidString.prefix(8))"
        // As in ChildProcess: chatcli here leaves this machine's router alone.
        let env = environment.merging(["CHATCLI_PORT_MAPPING": "off"]) { given, _ in given }
            .sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        // bash waits for the program and prints its status: tmux itself
        // sometimes leaves an exited pane process unreaped for a long time.
        // It also shows whether the terminal was restored (line editing and echo back on).
        let wrapper = #""$@"; s=$?; echo "[exit status $s; tty $(stty -a | tr ' ;' '\n\n' | grep -x -E -- '-?(icanon|echo)' | tr '\n' ' ')]"; exec sleep 3600"#
        let status = try Self.spawnDetached(["tmux", "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", session, "-x", "120", "-y", "40",
                                             "--", "/usr/bin/env"] + env + ["/bin/bash", "-c", wrapper, "bash"] + command)
        guard status == 0 else { throw TmuxError.cannotStart(status) }
    }

    enum TmuxError: Error { case cannotStart(Int32) }

    /// Runs tmux to start its server. Not through `Process`: the server it
    /// forks would inherit Foundation's exit-watch socket (and any pipe of
    /// another child) and keep it open, so the start would never be seen
    /// to finish. Here the child gets /dev/null, no other descriptors and
    /// no blocked signals.
    private static func spawnDetached(_ argv: [String]) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in 0...2 { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap({ Int32($0) }) where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
        // The test runner's threads block most signals; tmux (libevent) and
        // the chat need them delivered, with default dispositions.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var cArgs = argv.map { strdup($0) } + [nil]
        defer { for p in cArgs { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable ?? "/usr/bin/tmux", &actions, &attributes, &cArgs, environ)
        guard rc == 0 else { throw TmuxError.cannotStart(rc) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status >> 8) & 0xFF
    }

    @discardableResult
    private func tmux(output: Bool = true, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable ?? "/usr/bin/tmux")
        process.arguments = ["-L", socket] + arguments
        let out = Pipe()
        process.standardOutput = output ? out : FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.runSerialized()
        let data = output ? out.fileHandleForReading.readDataToEndOfFile() : Data()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// Types `text` literally (no key names).
    func type(_ text: String) { _ = try? tmux(["send-keys", "-t", session, "-l", "--", text]) }
    /// Types a line and presses Enter.
    func enter(_ line: String) {
        type(line)
        press("Enter")
    }
    /// Presses keys by tmux name: `Enter`, `C-c`, `C-d`, `Left`.
    func press(_ keys: String...) { _ = try? tmux(["send-keys", "-t", session] + keys) }

    /// The visible screen; with `escapes`, SGR attributes included (`capture-pane -e`).
    /// The visible screen; with `history`, everything that scrolled off it too.
    func screen(escapes: Bool = false, history: Bool = false) -> String {
        (try? tmux(["capture-pane", "-p", "-t", session] + (escapes ? ["-e"] : []) + (history ? ["-S", "-"] : []))) ?? ""
    }

    var title: String { ((try? tmux(["display-message", "-p", "-t", session, "#{pane_title}"])) ?? "").trimmingCharacters(in: .newlines) }

    /// Polls the screen until `match` holds; the last screen either way.
    @discardableResult
    func waitFor(timeout: TimeInterval = 15, history: Bool = false, _ match: (String) -> Bool) -> (ok: Bool, screen: String) {
        let deadline = Date().addingTimeInterval(timeout)
        var text = screen(history: history)
        while !match(text) {
            if Date() > deadline { return (false, text) }
            usleep(50_000)
            text = screen(history: history)
        }
        return (true, text)
    }

    func waitFor(_ needle: String, timeout: TimeInterval = 15) -> (ok: Bool, screen: String) {
        waitFor(timeout: timeout) { $0.contains(needle) }
    }

    /// The line the cursor is on (the prompt and what is typed after it).
    var promptLine: String {
        screen().split(separator: "\n", omittingEmptySubsequences: false).map(String.init).last { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? ""
    }

    /// The program's exit status once it ended, or nil at the deadline.
    func waitForExit(timeout: TimeInterval = 15) -> Int32? {
        exitReport(timeout: timeout)?.status
    }

    /// Exit status and the terminal's line-discipline flags after the program ended.
    func exitReport(timeout: TimeInterval = 15) -> (status: Int32, tty: String)? {
        let pattern = #"\[exit status (\d+); tty ([^\]]*)\]"#
        let shown = waitFor(timeout: timeout) { $0.range(of: pattern, options: .regularExpression) != nil }
        guard shown.ok, let range = shown.screen.range(of: pattern, options: .regularExpression) else { return nil }
        let text = shown.screen[range].dropFirst("[exit status ".count).dropLast()
        let parts = text.split(separator: ";", maxSplits: 1)
        guard let status = Int32(parts[0]) else { return nil }
        return (status, parts.count > 1 ? parts[1].replacingOccurrences(of: "tty", with: "").trimmingCharacters(in: .whitespaces) : "")
    }

    /// The program itself (the child of the pane's bash), for signals.
    var programPID: pid_t? {
        guard let pane = Int32(((try? tmux(["display-message", "-p", "-t", session, "#{pane_pid}"])) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)),
              let children = try? String(contentsOfFile: "/proc/\(pane)/task/\(pane)/children", encoding: .utf8) else { return nil }
        return children.split(separator: " ").first.flatMap { Int32($0) }
    }

    /// Ends this pane's tmux server (so the program gets SIGHUP) and removes its socket.
    func kill() {
        _ = try? tmux(["kill-server"])
        let directory = withEnvironmentLock { ProcessInfo.processInfo.environment["TMUX_TMPDIR"] } ?? "/tmp"
        unlink("\(directory)/tmux-\(getuid())/\(socket)")
    }

    deinit { kill() }
}

import Foundation
import TestSupport
import Testing

/// A child process of the real `chatcli` binary (or any program) with its
/// output collected line by line, so tests wait on events with deadlines
/// instead of sleeping.
final class ChildProcess: @unchecked Sendable {
    // @unchecked: all mutable state is guarded by `lock`; the pipes are read
    // on two reader threads.
    private let process = Process()
    private let stdinPipe = Pipe()
    private let lock = NSCondition()
    private var stdoutLines: [String] = []
    private var stderrLines: [String] = []
    private var partial: [Int: Data] = [:]
    /// The streams (1, 2) whose pipe reached end of file.
    private var ended: Set<Int> = []
    let name: String

    init(_ executable: String, _ arguments: [String], name: String, environment: [String: String] = [:]) throws {
        self.name = name
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = withEnvironmentLock { ProcessInfo.processInfo.environment }
        // chatcli on this machine must not ask its real router for port
        // mappings; tests of port mapping (in their own namespaces) say "on".
        env["CHATCLI_PORT_MAPPING"] = "off"
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardInput = stdinPipe
        process.standardOutput = out
        process.standardError = err
        try process.runSerialized()
        // One reader thread per pipe with blocking reads to end of file:
        // Foundation's readabilityHandler lost the tail of long outputs
        // now and then on a busy machine.
        for (pipe, stream) in [(out, 1), (err, 2)] {
            let handle = pipe.fileHandleForReading
            Thread.detachNewThread { [weak self] in
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let n = buffer.withUnsafeMutableBytes { Glibc.read(handle.fileDescriptor, $0.baseAddress, $0.count) }
                    if n < 0 && errno == EINTR { continue }
                    guard let self else { break }   // released (and its process stopped): nobody reads on
                    self.collect(n > 0 ? Data(buffer[0..<n]) : Data(), stream: stream)
                    if n <= 0 { break }
                }
                try? handle.close()
            }
        }
    }

    static func chatcli(_ arguments: [String], name: String, environment: [String: String] = [:]) throws -> ChildProcess {
        try ChildProcess(Harness.chatcliPath, arguments, name: name, environment: environment)
    }

    private func collect(_ data: Data, stream: Int) {
        lock.lock()
        defer { lock.broadcast(); lock.unlock() }
        if data.isEmpty { ended.insert(stream) }
        var buffer = (partial[stream] ?? Data()) + data
        if data.isEmpty, !buffer.isEmpty { buffer.append(0x0A) }   // EOF: flush the last line
        while let nl = buffer.firstIndex(of: 0x0A) {
            let line = String(decoding: buffer[buffer.startIndex..<nl], as: UTF8.self)
            if stream == 1 { stdoutLines.append(line) } else { stderrLines.append(line) }
            buffer = Data(buffer[(nl + 1)...])
        }
        partial[stream] = buffer
    }

    var stdout: [String] { lock.lock(); defer { lock.unlock() }; return stdoutLines }
    var stderr: [String] { lock.lock(); defer { lock.unlock() }; return stderrLines }

    /// Waits until a stdout (or stderr) line satisfies `match`; returns it, or
    /// nil at the deadline.
    func waitForLine(stderr useStderr: Bool = false, timeout: TimeInterval = 10, _ match: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock()
        defer { lock.unlock() }
        var seen = 0
        while true {
            let lines = useStderr ? stderrLines : stdoutLines
            if let hit = lines[seen...].first(where: match) { return hit }
            seen = lines.count
            if !lock.wait(until: deadline) { return nil }
        }
    }

    /// Waits for a `--json` event line with one of these `event` names; returns its object.
    func waitForEvent(_ events: String..., timeout: TimeInterval = 10) -> [String: Any]? {
        var found: [String: Any]?
        _ = waitForLine(timeout: timeout) { line in
            guard let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let event = obj["event"] as? String, events.contains(event) else { return false }
            found = obj
            return true
        }
        return found
    }

    /// Writes to stdin; a process that already exited is not an error here (its test fails on what it printed).
    func write(_ text: String) { try? stdinPipe.fileHandleForWriting.write(contentsOf: Data(text.utf8)) }
    func closeInput() { try? stdinPipe.fileHandleForWriting.close() }
    func signal(_ sig: Int32) { kill(process.processIdentifier, sig) }
    var pid: Int32 { process.processIdentifier }

    /// Waits for exit; kills the process and returns nil at the deadline.
    func waitForExit(timeout: TimeInterval = 15) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            return nil
        }
        process.waitUntilExit()
        // Every line it wrote is collected once both pipes reach end of file
        // (a grandchild still holding them open is not waited for long).
        let drained = Date().addingTimeInterval(10)
        lock.lock()
        while ended.count < 2, lock.wait(until: drained) {}
        lock.unlock()
        return process.terminationStatus
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    var transcript: String {
        "--- \(name) stdout\n" + stdout.joined(separator: "\n") + "\n--- \(name) stderr\n" + stderr.joined(separator: "\n")
    }

    deinit { stop() }
}

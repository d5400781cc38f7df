import Foundation
import TestSupport
import Testing

/// Locates the built binary and tools, and starts a real `chatcli serve` on
/// free loopback ports.
enum Harness {
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    static var chatcliPath: String {
        withEnvironmentLock { ProcessInfo.processInfo.environment["CHATCLI_BIN"] } ?? packageRoot + "/.build/debug/chatcli"
    }

    static var pythonPath: String {
        withEnvironmentLock { ProcessInfo.processInfo.environment["CHATCLI_PYTHON"] } ?? packageRoot + "/.build/venv/bin/python"
    }

    static func temporaryDirectory() -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("chatcli-e2e-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Removes a test's directory once it is done with it (some receive hundreds of
    /// megabytes; Tools/test removes whatever is left in its temp dir when the run ends).
    static func remove(_ dir: String) {
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// A free TCP port on 127.0.0.1 (bound and released; the race is harmless here).
    static func freePort(udpPair: Bool = false) -> UInt16 {
        while true {
            let fd = socket(AF_INET, udpPair ? Int32(SOCK_DGRAM.rawValue) : Int32(SOCK_STREAM.rawValue), 0)
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            addr.sin_port = 0
            var len = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
            _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
            close(fd)
            let port = UInt16(bigEndian: addr.sin_port)
            if !udpPair || (port < 65535 && udpPortFree(port + 1)) { return port }
        }
    }

    private static func udpPortFree(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        return withLoopback(port: port) { bind(fd, $0, $1) } == 0
    }

    /// Calls `body` with 127.0.0.1:`port` as a `sockaddr` (for bind or connect).
    static func withLoopback(port: UInt16, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = port.bigEndian
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }
}

/// A running `chatcli serve` on 127.0.0.1.
final class ServerProcess {
    let port: UInt16
    let stunPort: UInt16
    let dbPath: String
    let extraArguments: [String]
    let environment: [String: String]
    private(set) var process: ChildProcess
    var url: String { "\(scheme)://\(host):\(port)" }
    var scheme: String { extraArguments.contains("--tls-cert") ? "https" : "http" }
    var host = "127.0.0.1"

    init(dbPath: String? = nil, arguments: [String] = [], environment: [String: String] = [:]) throws {
        port = Harness.freePort()
        stunPort = Harness.freePort(udpPair: true)
        self.dbPath = dbPath ?? Harness.temporaryDirectory() + "/rooms.db"
        extraArguments = arguments
        self.environment = environment
        process = try ServerProcess.launch(port: port, stunPort: stunPort, db: self.dbPath, extra: arguments, environment: environment)
        try waitUntilListening()
    }

    private static func launch(port: UInt16, stunPort: UInt16, db: String, extra: [String], environment: [String: String]) throws -> ChildProcess {
        try ChildProcess.chatcli(["serve", "--host", "127.0.0.1", "--port", "\(port)", "--stun-port", "\(stunPort)", "--db", db] + extra,
                                 name: "server", environment: environment)
    }

    /// Stops the server (SIGTERM, graceful; or SIGKILL, a crash) and starts
    /// it again on the same ports and database after `downFor` seconds.
    func restart(crash: Bool = false, downFor: TimeInterval = 0) throws {
        stop(crash: crash)
        if downFor > 0 { Thread.sleep(forTimeInterval: downFor) }
        try start()
    }

    /// Stops the server; `start()` brings it back on the same ports and database.
    func stop(crash: Bool = false) {
        process.signal(crash ? SIGKILL : SIGTERM)
        let status = process.waitForExit()
        if !crash { #expect(status == 143, "server exits 143 (128 + SIGTERM) after its graceful stop\n\(process.transcript)") }
    }

    func start() throws {
        process = try ServerProcess.launch(port: port, stunPort: stunPort, db: dbPath, extra: extraArguments, environment: environment)
        try waitUntilListening()
    }

    private func waitUntilListening() throws {
        if process.waitForLine(stderr: true, timeout: 15, { $0.contains("listening") }) == nil {
            throw HarnessError.serverDidNotStart(process.transcript)
        }
    }

    deinit { process.stop() }
}

enum HarnessError: Error {
    case serverDidNotStart(String)
}

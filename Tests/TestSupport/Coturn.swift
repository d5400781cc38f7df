import COpenSSL
import Foundation
import Wire

/// A real coturn `turnserver` on loopback with TURN REST API credentials,
/// started per test and ended by its PID.
public final class Coturn {
    public static let executable: String? = ["/usr/bin/turnserver", "/usr/local/bin/turnserver", "/usr/sbin/turnserver"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }
    public static let isInstalled = executable != nil

    public let port: UInt16
    public let relayPorts: ClosedRange<UInt16>
    public let realm = "chatcli.test"
    /// The `static-auth-secret` shared with whoever hands out credentials.
    public let secret: String
    private var process = Process()
    private var arguments: [String]
    private let directory: TemporaryDirectory

    /// With `tls`: TURN over TLS (`turns:`) on `tlsPort`, with a
    /// certificate for 127.0.0.1 from a throwaway CA (`certificates`).
    public private(set) var tlsPort: UInt16?
    public private(set) var certificates: TestCertificates?

    /// `verbose` logs each session with its user name (`user <NAME>`).
    public init(verbose: Bool = false, tls: Bool = false) throws {
        guard Self.executable != nil else { throw TestSupportError("turnserver is not installed") }
        directory = try TemporaryDirectory(prefix: "coturn")
        port = try Self.freePort()
        let low = UInt16.random(in: 40_000...58_000)
        relayPorts = low...(low + 199)
        secret = (0..<16).map { _ in String(UInt8.random(in: 0...255), radix: 16) }.joined()
        arguments = [
            "-n", "--use-auth-secret", "--static-auth-secret=\(secret)", "--realm=\(realm)",
            "--listening-ip=127.0.0.1", "--relay-ip=127.0.0.1", "--listening-port=\(port)",
            "--min-port=\(relayPorts.lowerBound)", "--max-port=\(relayPorts.upperBound)",
            "--no-cli", "--no-dtls", "--allow-loopback-peers",
            "--log-file=\(directory.file("turn.log"))", "--simple-log", "--no-stdout-log",
            "--pidfile=\(directory.file("turnserver.pid"))",
            // Keep the SQLite user database (unused with a static secret) out
            // of the system paths so parallel servers do not share it.
            "--db=\(directory.file("turndb"))",
        ] + (verbose ? ["--verbose"] : [])
        if tls {
            let certificates = try TestCertificates.make(in: directory.path)
            let tlsPort = try Self.freePort()
            arguments += ["--tls-listening-port=\(tlsPort)", "--cert=\(certificates.certFile)", "--pkey=\(certificates.keyFile)"]
            self.tlsPort = tlsPort
            self.certificates = certificates
        } else {
            arguments += ["--no-tls"]
        }
        try launch()
    }

    private func launch() throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable ?? "turnserver")
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runSerialized()
        try waitUntilListening()
    }

    /// A crash and restart: SIGKILL, then a new server on the same port and
    /// secret. Every allocation is gone, unannounced (UDP clients learn it
    /// from their next request; TCP clients see their stream end).
    public func restart() throws {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try launch()
    }

    /// TURN REST API credentials (draft-uberti-behave-turn-rest):
    /// username "<expiry>:<id>", password base64(HMAC-SHA1(secret, username)).
    public func credentials(id: String = "chatcli", validFor seconds: Int = 3600) -> (username: String, password: String) {
        let username = "\(Int(Date().timeIntervalSince1970) + seconds):\(id)"
        var mac = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        let key = Array(secret.utf8), data = Array(username.utf8)
        _ = HMAC(EVP_sha1(), key, Int32(key.count), data, data.count, &mac, &length)
        return (username, Base64.encode(mac.prefix(Int(length))))
    }

    /// The server's log so far.
    public var log: String { (try? String(contentsOfFile: directory.file("turn.log"), encoding: .utf8)) ?? "(no log)" }

    /// The end of the server's log, for failure messages.
    public var logTail: String {
        "--- coturn log (tail)\n" + log.split(separator: "\n").suffix(40).joined(separator: "\n")
    }

    /// Ends the server by its PID: SIGTERM, then SIGKILL if it lingers.
    public func stop() {
        defer { directory.remove() }
        let pid = process.processIdentifier
        if process.isRunning { kill(pid, SIGTERM) }
        let deadline = Date().addingTimeInterval(3)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    /// A port free for both TCP and UDP on 127.0.0.1 (coturn listens on
    /// both), found by letting the kernel pick one.
    private static func freePort() throws -> UInt16 {
        for _ in 0..<20 {
            let tcp = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(tcp) }
            guard let port = bindLoopback(tcp, port: 0) else { continue }
            let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            defer { close(udp) }
            if bindLoopback(udp, port: port) != nil { return port }
        }
        throw TestSupportError("no free port for coturn")
    }

    private static func bindLoopback(_ fd: Int32, port: UInt16) -> UInt16? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        return bound ? UInt16(bigEndian: address.sin_port) : nil
    }

    /// Polls a TCP connect to the listening port (with a deadline) so tests
    /// start once the server accepts; UDP retransmissions cover the rest.
    private func waitUntilListening() throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            guard process.isRunning else { throw TestSupportError("turnserver exited at start\n\(logTail)") }
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            close(fd)
            if connected { return }
            usleep(20_000)
        }
        stop()
        throw TestSupportError("turnserver did not listen on 127.0.0.1:\(port) within 10 s\n\(logTail)")
    }
}

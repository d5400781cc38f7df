import Foundation

/// A real Debian `redis-server` on a free loopback port, without
/// persistence, for tests of the scripts and the client; ended by its PID.
public final class RedisServer {
    public static let executable = "/usr/bin/redis-server"
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    public let port: UInt16
    private let process = Process()

    public init() throws {
        guard Self.isInstalled else { throw TestSupportError("redis-server is not installed") }
        port = try Self.freePort()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = ["--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "no"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runSerialized()
        for _ in 0..<100 {
            if Self.accepts(port) { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TestSupportError("redis-server did not start on port \(port)")
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    private static func accepts(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    private static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { throw TestSupportError("no free port for redis-server") }
        return UInt16(bigEndian: address.sin_port)
    }
}

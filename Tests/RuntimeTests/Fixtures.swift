import Glibc
import Runtime

/// True when this machine can bind ::1 (containers often have IPv6 off);
/// IPv6 tests are skipped, visibly, when it cannot.
let ipv6Available: Bool = {
    let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var storage = sockaddr_in6()
    storage.sin6_family = sa_family_t(AF_INET6)
    withUnsafeMutableBytes(of: &storage.sin6_addr) { $0[15] = 1 }
    return withUnsafePointer(to: &storage) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0
        }
    }
}()

enum Fixture {
    static func address(_ text: String) throws -> SocketAddress {
        guard let address = SocketAddress(text) else { throw FixtureError("bad address \(text)") }
        return address
    }

    /// A listener that writes back whatever each connection sends.
    static func echoServer(loop: EventLoop, at text: String) throws -> TCPListener {
        let listener = try TCPListener(loop: loop, address: try address(text))
        listener.onAccept = { connection in
            connection.onData = { [unowned connection] bytes in connection.write(bytes) }
        }
        return listener
    }

    /// A port on which nothing listens (bound once, then released).
    static func closedPort(loop: EventLoop) throws -> UInt16 {
        let listener = try TCPListener(loop: loop, address: try address("127.0.0.1:0"))
        let port = listener.localAddress.port
        listener.close()
        return port
    }

    /// Deterministic pseudo-random bytes (xorshift), so failures reproduce.
    static func bytes(count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

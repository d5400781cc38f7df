import CShims
import Glibc

/// Thin wrappers over the socket system calls shared by TCP and UDP.
enum Socket {
    /// A non-blocking, close-on-exec socket for `address`'s family.
    static func make(for address: SocketAddress, type: Int32) throws(RuntimeError) -> Int32 {
        let domain = address.family == .ipv4 ? AF_INET : AF_INET6
        let fd = socket(domain, type | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .lastErrno("socket") }
        return fd
    }

    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) -> Bool {
        var value = value
        return setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0
    }

    static func intOption(_ fd: Int32, _ level: Int32, _ name: Int32) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, level, name, &value, &length) == 0 else { return -1 }
        return value
    }

    /// A dual-stack listener on "::" also accepts IPv4 (IPV6_V6ONLY off).
    static func allowDualStack(_ fd: Int32, _ address: SocketAddress) {
        if address.family == .ipv6 && address.isUnspecified {
            _ = setOption(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, 0)
        }
    }

    static func bind(_ fd: Int32, _ address: SocketAddress) throws(RuntimeError) {
        let result = address.withSockaddr(asIPv6: false) { Glibc.bind(fd, $0, $1) }
        guard result == 0 else { throw .lastErrno("bind \(address)") }
    }

    static func localAddress(_ fd: Int32) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return result == 0 ? SocketAddress(storage: storage) : nil
    }

    static func remoteAddress(_ fd: Int32) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        return result == 0 ? SocketAddress(storage: storage) : nil
    }

    /// Bytes the kernel holds unsent (or unacknowledged) for a TCP socket.
    static func unsentBytes(_ fd: Int32) -> Int32 {
        var count: Int32 = 0
        guard ioctl(fd, UInt(TIOCOUTQ), &count) == 0 else { return 0 }
        return count
    }

    /// Makes `close` reset the connection and drop what the kernel still
    /// holds for it, rather than keep trying to deliver it to a peer whose
    /// window stays shut (which could take minutes, and kernel memory).
    static func resetOnClose(_ fd: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// Interactive traffic (chat lines, HTTP, WebSocket frames) wants each
    /// write on the wire now, not batched behind Nagle's delay.
    static func setNoDelay(_ fd: Int32) {
        _ = setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
    }
}

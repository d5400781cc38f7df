import CShims
import Glibc

/// A UDP socket on one interface that is a member of one multicast group
/// (mDNS: 224.0.0.251 or ff02::fb, port 5353). The port is shared with
/// other responders on the host (Avahi, mDNSResponder) through
/// SO_REUSEADDR and SO_REUSEPORT; IP_MULTICAST_ALL off and, where allowed,
/// SO_BINDTODEVICE keep each socket to what arrives on its own interface.
public final class MulticastSocket: EventHandler {
    public let loop: EventLoop
    public let interfaceIndex: UInt32
    public let group: SocketAddress
    public var onDatagram: (([UInt8], SocketAddress) -> Void)?
    private var fd: Int32

    // Linux values (not exported by every libc header Swift sees).
    private static let ipMulticastAll: Int32 = 49
    private static let ipv6MulticastAll: Int32 = 29

    /// Joins `group` (its port is the one bound) on the interface `name`/`index`.
    public init(loop: EventLoop, group: SocketAddress, interface name: String, index: UInt32) throws(RuntimeError) {
        self.loop = loop
        self.group = group
        self.interfaceIndex = index
        let wildcard = SocketAddress.unspecified(group.family, port: group.port)
        let fd = try Socket.make(for: wildcard, type: Int32(SOCK_DGRAM.rawValue))
        do throws(RuntimeError) {
            _ = Socket.setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
            _ = Socket.setOption(fd, SOL_SOCKET, SO_REUSEPORT, 1)
            // Needs CAP_NET_RAW on older kernels; without it IP_MULTICAST_ALL still filters multicast.
            _ = name.withCString { setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, $0, socklen_t(strlen($0) + 1)) }
            if group.family == .ipv4 {
                try Self.joinIPv4(fd, group: group, index: index)
            } else {
                try Self.joinIPv6(fd, group: group, index: index)
            }
            try Socket.bind(fd, wildcard)
        } catch {
            Glibc.close(fd)
            throw error
        }
        self.fd = fd
        do throws(RuntimeError) {
            try loop.register(fd, events: Epoll.in, handler: self)
        } catch {
            Glibc.close(fd)
            self.fd = -1
            throw error
        }
    }

    private static func joinIPv4(_ fd: Int32, group: SocketAddress, index: UInt32) throws(RuntimeError) {
        _ = Socket.setOption(fd, Int32(IPPROTO_IP), ipMulticastAll, 0)
        _ = Socket.setOption(fd, Int32(IPPROTO_IP), IP_MULTICAST_TTL, 255)
        _ = Socket.setOption(fd, Int32(IPPROTO_IP), IP_MULTICAST_LOOP, 1)
        var request = ip_mreqn()
        request.imr_ifindex = Int32(index)
        let bytes = group.ipBytes
        withUnsafeMutableBytes(of: &request.imr_multiaddr) { $0.copyBytes(from: bytes) }
        guard setsockopt(fd, Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP, &request, socklen_t(MemoryLayout<ip_mreqn>.size)) == 0 else {
            throw .lastErrno("join \(group.ip)")
        }
        var outgoing = ip_mreqn()
        outgoing.imr_ifindex = Int32(index)
        guard setsockopt(fd, Int32(IPPROTO_IP), IP_MULTICAST_IF, &outgoing, socklen_t(MemoryLayout<ip_mreqn>.size)) == 0 else {
            throw .lastErrno("IP_MULTICAST_IF")
        }
    }

    private static func joinIPv6(_ fd: Int32, group: SocketAddress, index: UInt32) throws(RuntimeError) {
        _ = Socket.setOption(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, 1)
        _ = Socket.setOption(fd, Int32(IPPROTO_IPV6), ipv6MulticastAll, 0)
        _ = Socket.setOption(fd, Int32(IPPROTO_IPV6), IPV6_MULTICAST_HOPS, 255)
        _ = Socket.setOption(fd, Int32(IPPROTO_IPV6), IPV6_MULTICAST_LOOP, 1)
        var request = ipv6_mreq()
        request.ipv6mr_interface = index
        let bytes = group.ipBytes
        withUnsafeMutableBytes(of: &request.ipv6mr_multiaddr) { $0.copyBytes(from: bytes) }
        guard setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_JOIN_GROUP, &request, socklen_t(MemoryLayout<ipv6_mreq>.size)) == 0 else {
            throw .lastErrno("join \(group.ip)")
        }
        guard Socket.setOption(fd, Int32(IPPROTO_IPV6), IPV6_MULTICAST_IF, Int32(index)) else {
            throw .lastErrno("IPV6_MULTICAST_IF")
        }
    }

    public var isOpen: Bool { fd >= 0 }

    /// Sends to `address` (the group, or one querier); failures are dropped
    /// datagrams, as on the wire.
    @discardableResult
    public func send(_ bytes: [UInt8], to address: SocketAddress) -> Bool {
        guard fd >= 0 else { return false }
        let count = address.withSockaddr(asIPv6: group.family == .ipv6) { pointer, length in
            bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), pointer, length) }
        }
        return count == bytes.count
    }

    public func close() {
        guard fd >= 0 else { return }
        loop.deregister(fd)
        Glibc.close(fd)
        fd = -1
        onDatagram = nil
    }

    func handleEvent(_ events: UInt32) {
        guard events & (Epoll.in | Epoll.err) != 0 else { return }
        let buffer = loop.readBuffer
        for _ in 0..<64 {
            guard fd >= 0 else { return }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let count = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, buffer.baseAddress, buffer.count, 0, $0, &length) }
            }
            if count < 0 {
                if Glibc.errno == EINTR { continue }
                return
            }
            guard let from = SocketAddress(storage: storage) else { continue }
            onDatagram?([UInt8](UnsafeRawBufferPointer(rebasing: buffer[0..<count])), from)
        }
    }
}

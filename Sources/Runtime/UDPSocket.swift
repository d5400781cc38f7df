import CShims
import Glibc
import Wire

/// A non-blocking UDP socket: STUN on the server, ICE/DTLS/SCTP on the client.
///
/// Datagrams are received into the loop's shared buffer and delivered as
/// exact-size arrays. Sends go straight to the kernel; if its buffer is full
/// (EAGAIN) up to ``maxQueuedBytes`` wait for EPOLLOUT, beyond that the
/// datagram is dropped and counted, which is what the network would do
/// anyway and what congestion control upstream (SCTP) expects.
public final class UDPSocket: EventHandler {
    public let loop: EventLoop
    /// The bound address; with port 0 in the request, the port the kernel chose.
    public let localAddress: SocketAddress
    public var onDatagram: (([UInt8], SocketAddress) -> Void)?
    /// Datagrams dropped because the send queue was full or sending failed.
    public private(set) var droppedSends = 0
    /// Upper bound on bytes queued while the kernel send buffer is full.
    public var maxQueuedBytes = 4 * 1024 * 1024

    private var fd: Int32
    private let isIPv6: Bool
    private var queue = Deque<(bytes: [UInt8], to: SocketAddress)>()
    private var queuedBytes = 0

    /// Binds to `bind` ("0.0.0.0:0" for any port; "[::]:0" is dual-stack).
    /// Asks for 4 MiB kernel buffers so bursts survive a slow loop turn;
    /// the kernel may grant less (net.core.rmem_max), which is not an error.
    public init(loop: EventLoop, bind address: SocketAddress) throws(RuntimeError) {
        self.loop = loop
        let fd = try Socket.make(for: address, type: Int32(SOCK_DGRAM.rawValue))
        do throws(RuntimeError) {
            _ = Socket.setOption(fd, SOL_SOCKET, SO_RCVBUF, 4 * 1024 * 1024)
            _ = Socket.setOption(fd, SOL_SOCKET, SO_SNDBUF, 4 * 1024 * 1024)
            Socket.allowDualStack(fd, address)
            // Don't Fragment, whatever the kernel believes the path MTU is:
            // a datagram the path cannot carry is lost (or refused here with
            // EMSGSIZE) rather than fragmented, as Path MTU Discovery in
            // SCTP (RFC 8899) needs to learn the limit.
            _ = Socket.setOption(fd, Int32(IPPROTO_IP), IP_MTU_DISCOVER, IP_PMTUDISC_PROBE)
            if address.family == .ipv6 { _ = Socket.setOption(fd, Int32(IPPROTO_IPV6), IPV6_MTU_DISCOVER, IPV6_PMTUDISC_PROBE) }
            try Socket.bind(fd, address)
        } catch {
            Glibc.close(fd)
            throw error
        }
        self.fd = fd
        self.isIPv6 = address.family == .ipv6
        self.localAddress = Socket.localAddress(fd) ?? address
        do throws(RuntimeError) {
            try loop.register(fd, events: Epoll.in, handler: self)
        } catch {
            Glibc.close(fd)
            self.fd = -1
            throw error
        }
    }

    public var isOpen: Bool { fd >= 0 }

    /// Sends one datagram. An IPv4 destination works from a dual-stack
    /// IPv6 socket; an IPv6 one from an IPv4 socket is dropped.
    public func send(_ bytes: [UInt8], to address: SocketAddress) {
        guard fd >= 0 else { return }
        if !queue.isEmpty {
            enqueue(bytes, to: address)
            return
        }
        switch transmit(bytes, to: address) {
        case .sent: break
        case .wouldBlock: enqueue(bytes, to: address)
        case .failed: droppedSends += 1
        }
    }

    public func close() {
        guard fd >= 0 else { return }
        loop.deregister(fd)
        Glibc.close(fd)
        fd = -1
        onDatagram = nil
        queue.removeAll()
        queuedBytes = 0
    }

    func handleEvent(_ events: UInt32) {
        if events & Epoll.out != 0 {
            flushQueue()
        }
        if events & (Epoll.in | Epoll.err) != 0 {
            receive()
        }
    }

    private func receive() {
        let buffer = loop.readBuffer
        // Bounded batch: fairness with other sockets on the same loop.
        for _ in 0..<64 {
            guard fd >= 0 else { return }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let count = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    recvfrom(fd, buffer.baseAddress, buffer.count, 0, $0, &length)
                }
            }
            if count < 0 {
                let code = Glibc.errno
                // ICMP errors from earlier sends surface here; they concern
                // one peer, not the socket, so keep reading.
                if code == EINTR || code == ECONNREFUSED || code == EHOSTUNREACH || code == ENETUNREACH { continue }
                return
            }
            guard let from = SocketAddress(storage: storage) else { continue }
            let datagram = [UInt8](UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            onDatagram?(datagram, from)
        }
    }

    private enum Outcome { case sent, wouldBlock, failed }

    private func transmit(_ bytes: [UInt8], to address: SocketAddress) -> Outcome {
        if address.family == .ipv6 && !isIPv6 { return .failed }
        while true {
            let count = address.withSockaddr(asIPv6: isIPv6) { sockaddrPointer, length in
                bytes.withUnsafeBytes { raw in
                    sendto(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL), sockaddrPointer, length)
                }
            }
            if count >= 0 { return .sent }
            switch Glibc.errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK, ENOBUFS: return .wouldBlock
            default: return .failed
            }
        }
    }

    private func enqueue(_ bytes: [UInt8], to address: SocketAddress) {
        guard queuedBytes + bytes.count <= maxQueuedBytes else {
            droppedSends += 1
            return
        }
        if queue.isEmpty {
            loop.modify(fd, events: Epoll.in | Epoll.out)
        }
        queue.append((bytes, address))
        queuedBytes += bytes.count
    }

    private func flushQueue() {
        while let (bytes, address) = queue.first {
            let outcome = transmit(bytes, to: address)
            if outcome == .wouldBlock { return }
            if outcome == .failed { droppedSends += 1 }
            _ = queue.popFirst()
            queuedBytes -= bytes.count
        }
        queue.removeAll()   // give back the storage a burst grew
        loop.modify(fd, events: Epoll.in)
    }
}

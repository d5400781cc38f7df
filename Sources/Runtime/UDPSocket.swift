import CShims
import Glibc
import Wire

/// A non-blocking UDP socket: STUN on the server, ICE/DTLS/SCTP on the client.
///
/// Datagrams are received up to 16 per `recvmmsg` into the loop's shared
/// slots and delivered as exact-size arrays. Sends go straight to the kernel,
/// or, between ``beginBatch()`` and ``endBatch()``, together in one
/// `sendmmsg`; if its buffer is full (EAGAIN) up to ``maxQueuedBytes`` wait
/// for EPOLLOUT, beyond that the datagram is dropped and counted, which is
/// what the network would do anyway and what congestion control upstream
/// (SCTP) expects.
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
    private var batchDepth = 0
    private var batch: Batch?

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
        if batchDepth > 0 {
            if address.family == .ipv6 && !isIPv6 {
                droppedSends += 1
                return
            }
            let batch = self.batch ?? Batch()
            self.batch = batch
            if !batch.append(bytes, to: address, asIPv6: isIPv6) {
                flushBatch()
                if !queue.isEmpty || !batch.append(bytes, to: address, asIPv6: isIPv6) { enqueue(bytes, to: address) }
            }
            return
        }
        switch transmit(bytes, to: address) {
        case .sent: break
        case .wouldBlock: enqueue(bytes, to: address)
        case .failed: droppedSends += 1
        }
    }

    /// Holds the datagrams sent from now until the matching ``endBatch()``
    /// and gives them to the kernel together (`sendmmsg`, 64 at a time).
    /// Batches nest; order is kept.
    public func beginBatch() {
        batchDepth += 1
    }

    public func endBatch() {
        guard batchDepth > 0 else { return }
        batchDepth -= 1
        if batchDepth == 0 { flushBatch() }
    }

    public func close() {
        guard fd >= 0 else { return }
        loop.deregister(fd)
        Glibc.close(fd)
        fd = -1
        onDatagram = nil
        queue.removeAll()
        queuedBytes = 0
        batch = nil
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
        let slots = loop.datagramSlots
        let size = EventLoop.readBufferSize
        let capacity = EventLoop.datagramSlotCount
        var iovecs = (0..<capacity).map { iovec(iov_base: slots.baseAddress! + $0 * size, iov_len: size) }
        var addresses = [sockaddr_storage](repeating: sockaddr_storage(), count: capacity)
        var addressLengths = [socklen_t](repeating: 0, count: capacity)
        var lengths = [Int](repeating: 0, count: capacity)
        // Bounded batch: fairness with other sockets on the same loop.
        var budget = 64
        while budget > 0 {
            guard fd >= 0 else { return }
            let count = lengths.withUnsafeMutableBufferPointer { lengthsBuffer in
                cshims_recvmmsg(fd, &iovecs, &addresses, &addressLengths, lengthsBuffer.baseAddress, UInt32(min(capacity, budget)))
            }
            if count < 0 {
                let code = Glibc.errno
                // ICMP errors from earlier sends surface here; they concern
                // one peer, not the socket, so keep reading.
                if code == EINTR || code == ECONNREFUSED || code == EHOSTUNREACH || code == ENETUNREACH {
                    budget -= 1
                    continue
                }
                return
            }
            budget -= Int(count)
            for i in 0..<Int(count) {
                guard fd >= 0 else { return }
                guard let from = SocketAddress(storage: addresses[i]) else { continue }
                let datagram = [UInt8](UnsafeRawBufferPointer(start: slots.baseAddress! + i * size, count: lengths[i]))
                onDatagram?(datagram, from)
            }
            if Int(count) < capacity { return }
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

    /// Sends what the batch holds; what the kernel cannot take now (EAGAIN)
    /// waits in the queue, a datagram it refuses is dropped and counted.
    private func flushBatch() {
        guard let batch, batch.count > 0 else { return }
        defer { batch.removeAll() }
        var next = 0
        while next < batch.count {
            let sent = batch.send(fd: fd, from: next)
            if sent > 0 {
                next += sent
                continue
            }
            switch Glibc.errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK, ENOBUFS:
                for i in next..<batch.count { enqueue(batch.datagram(i), to: batch.address(i)) }
                return
            default:
                droppedSends += 1
                next += 1
            }
        }
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

/// Datagrams waiting for one `sendmmsg`: copied into one buffer (a copy is
/// far cheaper than the system calls it saves), with their addresses.
private final class Batch {
    static let capacity = 64
    static let bufferSize = 512 * 1024

    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 16)
    private var iovecs = [iovec]()
    private var addresses = [sockaddr_storage](repeating: sockaddr_storage(), count: capacity)
    private var addressLengths = [socklen_t](repeating: 0, count: capacity)
    private var destinations = [SocketAddress]()
    private var used = 0

    var count: Int { iovecs.count }

    init() {
        iovecs.reserveCapacity(Self.capacity)
        destinations.reserveCapacity(Self.capacity)
    }

    deinit { buffer.deallocate() }

    /// False when the batch is full; then flush and append again.
    func append(_ bytes: [UInt8], to address: SocketAddress, asIPv6: Bool) -> Bool {
        guard iovecs.count < Self.capacity, used + bytes.count <= Self.bufferSize else { return false }
        let start = buffer.baseAddress! + used
        bytes.withUnsafeBytes { if let base = $0.baseAddress { start.copyMemory(from: base, byteCount: $0.count) } }
        let slot = iovecs.count
        addresses[slot] = address.sockaddrStorage(asIPv6: asIPv6)
        addressLengths[slot] = address.sockaddrLength(asIPv6: asIPv6)
        iovecs.append(iovec(iov_base: start, iov_len: bytes.count))
        destinations.append(address)
        used += bytes.count
        return true
    }

    /// `sendmmsg` from datagram `first` on: how many went, or -1 (errno).
    func send(fd: Int32, from first: Int) -> Int {
        let n = UInt32(count - first)
        return iovecs.withUnsafeMutableBufferPointer { iov in
            addresses.withUnsafeMutableBufferPointer { addrs in
                addressLengths.withUnsafeBufferPointer { lengths in
                    Int(cshims_sendmmsg(fd, iov.baseAddress! + first, addrs.baseAddress! + first, lengths.baseAddress! + first, n))
                }
            }
        }
    }

    func datagram(_ i: Int) -> [UInt8] {
        [UInt8](UnsafeRawBufferPointer(start: iovecs[i].iov_base, count: iovecs[i].iov_len))
    }

    func address(_ i: Int) -> SocketAddress { destinations[i] }

    func removeAll() {
        iovecs.removeAll(keepingCapacity: true)
        destinations.removeAll(keepingCapacity: true)
        used = 0
    }
}

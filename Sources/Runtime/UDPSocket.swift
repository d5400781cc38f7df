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
///
/// Segmentation offload (Linux): a batch's runs of same-size datagrams to
/// one address go to the kernel as one buffer cut by it (`UDP_SEGMENT`),
/// and the socket asks for coalesced receives (`UDP_GRO`), which it cuts
/// back into the datagrams: on loopback a run then crosses the stack as
/// one packet. A kernel or path that refuses a segmented send (EIO, EINVAL)
/// gets that batch again datagram by datagram, and no segmented sends
/// after it.
public final class UDPSocket: EventHandler {
    public let loop: EventLoop
    /// The bound address; with port 0 in the request, the port the kernel chose.
    public let localAddress: SocketAddress
    public var onDatagram: (([UInt8], SocketAddress) -> Void)?
    /// After the datagrams of one readiness event (up to `receiveBudget`) went to
    /// `onDatagram`: where a connection sends what they caused, once for
    /// all of them instead of once per datagram.
    public var onDatagramsRead: (() -> Void)?
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
    /// Whether batches go out with `UDP_SEGMENT` (off once the kernel refused one).
    public private(set) var segmentsSends = true
    /// Whether the kernel coalesces received datagrams (`UDP_GRO`) for us to cut.
    public private(set) var segmentsReceives = false
    /// Datagrams that left as segments of a larger send, and received ones cut from a coalesced read.
    public private(set) var segmentedSends = 0
    public private(set) var segmentedReceives = 0
    /// Datagrams one readiness event delivers at most (more wait for the next turn).
    static let receiveBudget = 128
    /// Datagrams per receive in the last `recvmmsg` (above 1 when the kernel coalesced them).
    private var datagramsPerReceive = 1
    /// Tests: an errno every segmented send fails with, as a kernel that refuses them would.
    var refuseSegmentedSends: Int32?

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
        segmentsReceives = cshims_enable_udp_gro(fd) == 0
        // Until a receive says otherwise, one may hold as many datagrams as a segmented send carries.
        if segmentsReceives { datagramsPerReceive = Batch.maxSegmentedBytes / 1200 }
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
        var delivered = false
        defer { if delivered, fd >= 0 { onDatagramsRead?() } }
        let slots = loop.datagramSlots
        let size = EventLoop.readBufferSize
        let capacity = EventLoop.datagramSlotCount
        var iovecs = (0..<capacity).map { iovec(iov_base: slots.baseAddress! + $0 * size, iov_len: size) }
        var addresses = [sockaddr_storage](repeating: sockaddr_storage(), count: capacity)
        var addressLengths = [socklen_t](repeating: 0, count: capacity)
        var lengths = [Int](repeating: 0, count: capacity)
        var segments = [UInt16](repeating: 0, count: capacity)
        // Bounded batch: fairness with other sockets on the same loop. The
        // budget counts datagrams, also those cut from one coalesced (GRO)
        // receive: a file's socket otherwise took up to 64 receives of 64 KiB
        // each (about 2,900 datagrams, tens of ms) in one turn while a chat
        // line on another pair's socket waited. How many receives to ask for
        // follows how coalesced the last ones were.
        var budget = Self.receiveBudget
        while budget > 0 {
            guard fd >= 0 else { return }
            let ask = min(capacity, max(1, budget / datagramsPerReceive))
            let count = lengths.withUnsafeMutableBufferPointer { lengthsBuffer in
                cshims_recvmmsg_segmented(fd, &iovecs, &addresses, &addressLengths, lengthsBuffer.baseAddress, &segments,
                                          UInt32(ask))
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
            delivered = delivered || count > 0
            var datagrams = 0
            defer {
                budget -= max(datagrams, Int(count))
                if count > 0 { datagramsPerReceive = max(1, datagrams / Int(count)) }
            }
            for i in 0..<Int(count) {
                guard fd >= 0 else { return }
                guard let from = SocketAddress(storage: addresses[i]) else { continue }
                let received = UnsafeRawBufferPointer(start: slots.baseAddress! + i * size, count: lengths[i])
                let segment = Int(segments[i])
                if segment == 0 {
                    datagrams += 1
                    onDatagram?([UInt8](received), from)
                    continue
                }
                var start = 0
                while start < received.count, fd >= 0 {
                    let end = min(start + segment, received.count)
                    segmentedReceives += 1
                    datagrams += 1
                    onDatagram?([UInt8](UnsafeRawBufferPointer(rebasing: received[start..<end])), from)
                    start = end
                }
            }
            if Int(count) < ask { return }
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
            let runs = segmentsSends ? Batch.runs(batch.lengths, from: next, sameDestination: batch.sameDestination) : []
            let sent = runs.contains { $0.count > 1 }
                ? batch.send(fd: fd, runs: runs, refusing: refuseSegmentedSends)
                : batch.send(fd: fd, from: next)
            if sent > 0 {
                if !runs.isEmpty { segmentedSends += runs.prefix { $0.first < next + sent }.filter { $0.count > 1 }.reduce(0) { $0 + $1.count } }
                next += sent
                continue
            }
            let code = Glibc.errno
            if !runs.isEmpty, code == EIO || code == EINVAL || code == EOPNOTSUPP || code == ENOPROTOOPT, runs[0].count > 1 {
                segmentsSends = false   // this kernel or path refuses segmentation: datagram by datagram from now on
                continue
            }
            switch code {
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
final class Batch {
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
                    Int(cshims_sendmmsg_segmented(fd, iov.baseAddress! + first, addrs.baseAddress! + first, lengths.baseAddress! + first, nil, n))
                }
            }
        }
    }

    /// One message of a segmented send: datagrams `first..<first + count`,
    /// each `size` bytes but the last, which may be shorter.
    struct Run: Equatable {
        var first: Int
        var count: Int
        var size: Int
    }

    /// The kernel's limits on one segmented send: 64 segments, and the
    /// whole within one UDP datagram (65,535 bytes less UDP and IPv6 headers).
    static let maxSegments = 64
    static let maxSegmentedBytes = 65_000

    /// Datagrams from `first` on as runs for `sendmmsg`: consecutive ones to
    /// the same address of one size (a shorter one ends a run) share a run,
    /// within the kernel's limits; at most 64 runs.
    static func runs(_ lengths: [Int], from first: Int, sameDestination: (Int, Int) -> Bool) -> [Run] {
        var runs: [Run] = []
        var i = first
        while i < lengths.count && runs.count < capacity {
            var run = Run(first: i, count: 1, size: lengths[i])
            var total = lengths[i]
            var j = i + 1
            while j < lengths.count, run.count < maxSegments, run.size > 0, lengths[j] <= run.size, lengths[j] > 0,
                  total + lengths[j] <= maxSegmentedBytes, sameDestination(i, j) {
                run.count += 1
                total += lengths[j]
                j += 1
                if lengths[j - 1] < run.size { break }
            }
            runs.append(run)
            i = j
        }
        return runs
    }

    var lengths: [Int] { iovecs.map { $0.iov_len } }

    func sameDestination(_ a: Int, _ b: Int) -> Bool { destinations[a] == destinations[b] }

    /// `sendmmsg` of `runs` (datagrams stored back to back), each run of
    /// more than one datagram segmented by the kernel: how many datagrams
    /// went, or -1 (errno).
    func send(fd: Int32, runs: [Run], refusing: Int32?) -> Int {
        if let refusing, runs.first.map({ $0.count > 1 }) == true {
            errno = refusing
            return -1
        }
        var messages = runs.map { run in
            iovec(iov_base: iovecs[run.first].iov_base,
                  iov_len: (run.first..<run.first + run.count).reduce(0) { $0 + iovecs[$1].iov_len })
        }
        var messageAddresses = runs.map { addresses[$0.first] }
        let messageLengths = runs.map { addressLengths[$0.first] }
        let segments = runs.map { UInt16($0.count > 1 ? $0.size : 0) }
        let sent = Int(cshims_sendmmsg_segmented(fd, &messages, &messageAddresses, messageLengths, segments, UInt32(runs.count)))
        guard sent > 0 else { return sent }
        return runs.prefix(sent).reduce(0) { $0 + $1.count }
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

import CShims
import Glibc

/// A connected, non-blocking TCP socket registered with an ``EventLoop``.
///
/// Reads are delivered in chunks of up to 64 KiB through a buffer shared by
/// the whole loop; unsent output lives in a per-connection buffer only while
/// the kernel cannot take it, and EPOLLOUT is watched only then. An idle
/// connection costs a descriptor and this object, nothing more.
///
/// End of stream from the peer closes the connection (no half-close):
/// chatcli's protocols never keep writing after the peer has finished.
///
/// Unsent output is capped at ``outputLimit``: a peer that stops reading
/// gets its connection closed with an error when the cap would be passed,
/// instead of growing this process's memory for as long as it likes.
public final class TCPConnection: ByteStream, EventHandler {
    /// The default cap on unsent output: far above anything chatcli's own
    /// protocols queue (signaling frames, HTTP answers, TURN-framed
    /// datagrams that SCTP's window already bounds), far below what would
    /// hurt a machine when a thousand peers stop reading at once.
    public static let defaultOutputLimit = 16 * 1024 * 1024

    public let loop: EventLoop
    public let remoteAddress: SocketAddress
    public let localAddress: SocketAddress
    public var onData: (([UInt8]) -> Void)?
    public var onClose: ((RuntimeError?) -> Void)?
    public var onDrain: (() -> Void)?
    /// Bytes that may wait unsent; a write that would pass it closes the
    /// connection with an error (the peer is not reading).
    public var outputLimit = TCPConnection.defaultOutputLimit

    private var fd: Int32
    private var state = State.open
    private var output: [UInt8] = []
    private var outputIndex = 0
    private var interest = Epoll.in | Epoll.rdhup
    /// What this connection has added to `loop.bufferedOutputBytes`.
    private var accounted = 0

    private enum State { case open, closing, closed }

    /// Wraps a connected descriptor and starts reading.
    init(loop: EventLoop, fd: Int32, remote: SocketAddress?, local: SocketAddress?) throws(RuntimeError) {
        self.loop = loop
        self.fd = fd
        self.remoteAddress = remote ?? Socket.remoteAddress(fd) ?? .unspecified(.ipv4, port: 0)
        self.localAddress = local ?? Socket.localAddress(fd) ?? .unspecified(.ipv4, port: 0)
        Socket.setNoDelay(fd)
        try loop.register(fd, events: interest, handler: self)
    }

    /// Stops reading while true, so a slow consumer pushes back on the
    /// peer through TCP flow control instead of buffering without bound.
    public var isReadingPaused = false {
        didSet { if state != .closed { updateInterest() } }
    }

    public var bufferedAmount: Int { output.count - outputIndex }
    public var isOpen: Bool { state == .open }

    public func write(_ bytes: [UInt8]) {
        guard state == .open, !bytes.isEmpty else { return }
        if bufferedAmount > 0 {
            guard bufferedAmount + bytes.count <= outputLimit else { return overflow() }
            compactOutput()
            output.append(contentsOf: bytes)
            account()
            return
        }
        // Fast path: most writes go straight to the kernel without copying.
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress?.advanced(by: sent), raw.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                sent += count
            } else if count < 0 && Glibc.errno == EINTR {
                continue
            } else if count < 0 && (Glibc.errno == EAGAIN || Glibc.errno == EWOULDBLOCK) {
                break
            } else {
                finish(.lastErrno("send to \(remoteAddress)"))
                return
            }
        }
        if sent < bytes.count {
            guard bytes.count - sent <= outputLimit else { return overflow() }
            output = Array(bytes[sent...])
            outputIndex = 0
            account()
            updateInterest()
        }
    }

    /// The peer has not read what the cap allows: close rather than grow.
    private func overflow() {
        Socket.resetOnClose(fd)
        finish(RuntimeError(kind: .system(errno: ENOBUFS), reason: "the peer is not reading (more than \(outputLimit) bytes of output waiting)",
                            context: "send to \(remoteAddress)"))
    }

    /// Keeps the loop's total of unsent bytes (``EventLoop/bufferedOutputBytes``) current.
    private func account() {
        let amount = bufferedAmount
        loop.bufferedOutputBytes += amount - accounted
        accounted = amount
    }

    public func close() {
        guard state == .open else { return }
        if bufferedAmount == 0 {
            finish(nil)
        } else {
            state = .closing
            onData = nil
            updateInterest()
        }
    }

    /// With output still waiting (here or in the kernel), the connection is
    /// reset: that output is dropped, and the peer learns at once.
    public func abort() {
        if state != .closed && (bufferedAmount > 0 || Socket.unsentBytes(fd) > 0) { Socket.resetOnClose(fd) }
        finish(nil)
    }

    func handleEvent(_ events: UInt32) {
        if events & Epoll.err != 0 {
            let code = Socket.intOption(fd, SOL_SOCKET, SO_ERROR)
            finish(.system(code > 0 ? code : ECONNRESET, "connection to \(remoteAddress)"))
            return
        }
        if state == .open && events & (Epoll.in | Epoll.rdhup | Epoll.hup) != 0 {
            // After a hangup there is no next turn to finish reading on.
            readAvailable(maxReads: events & Epoll.hup != 0 ? Int.max : 4)
        }
        if state != .closed && events & Epoll.out != 0 {
            flush()
        }
        if state != .closed && events & Epoll.hup != 0 {
            // Both directions are gone; pending output can never be sent.
            finish(state == .closing ? .system(EPIPE, "connection to \(remoteAddress)") : nil)
        }
    }

    private func readAvailable(maxReads: Int) {
        let buffer = loop.readBuffer
        // A few reads per wake-up: drains bursts, yet one busy peer cannot
        // starve the others (level-triggered epoll brings us back).
        var reads = 0
        while reads < maxReads {
            reads += 1
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count > 0 {
                let chunk = [UInt8](UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                onData?(chunk)
                // Paused from inside onData: not one more chunk.
                guard state == .open, !isReadingPaused, count == buffer.count else { return }
            } else if count == 0 {
                finish(nil)
                return
            } else {
                let code = Glibc.errno
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK { return }
                finish(.system(code, "connection to \(remoteAddress)"))
                return
            }
        }
    }

    private func flush() {
        while bufferedAmount > 0 {
            let count = output.withUnsafeBytes { raw in
                send(fd, raw.baseAddress?.advanced(by: outputIndex), raw.count - outputIndex, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                outputIndex += count
            } else if count < 0 && Glibc.errno == EINTR {
                continue
            } else if count < 0 && (Glibc.errno == EAGAIN || Glibc.errno == EWOULDBLOCK) {
                account()
                return
            } else {
                finish(.lastErrno("send to \(remoteAddress)"))
                return
            }
        }
        // Drained: give the memory back, an idle connection should hold none.
        output = []
        outputIndex = 0
        account()
        if state == .closing {
            finish(nil)
        } else {
            updateInterest()
            onDrain?()
        }
    }

    private func compactOutput() {
        if outputIndex > 64 * 1024 && outputIndex * 2 > output.count {
            output.removeSubrange(0..<outputIndex)
            outputIndex = 0
        }
    }

    /// EPOLLOUT only while output is pending (otherwise level-triggered
    /// epoll would wake us on every turn); no reading once closing.
    private func updateInterest() {
        var mask: UInt32 = state == .open && !isReadingPaused ? Epoll.in | Epoll.rdhup : 0
        if bufferedAmount > 0 { mask |= Epoll.out }
        guard mask != interest else { return }
        interest = mask
        loop.modify(fd, events: mask)
    }

    /// The single exit: deregisters, closes the descriptor, and reports
    /// `onClose` once on the next turn so the caller is never re-entered.
    private func finish(_ error: RuntimeError?) {
        guard state != .closed else { return }
        state = .closed
        loop.deregister(fd)
        Glibc.close(fd)
        fd = -1
        output = []
        outputIndex = 0
        account()
        let callback = onClose
        onData = nil
        onClose = nil
        onDrain = nil
        if let callback {
            loop.execute { callback(error) }
        }
    }
}

import CShims
import Glibc

/// A listening TCP socket that hands each accepted connection to `onAccept`.
///
/// Set `onData`/`onClose` on the connection inside `onAccept`: reading
/// starts on the next loop turn, so nothing is missed.
public final class TCPListener: EventHandler {
    public let loop: EventLoop
    /// The bound address; with port 0 in the request, the port the kernel chose.
    public let localAddress: SocketAddress
    public var onAccept: ((TCPConnection) -> Void)?

    private var fd: Int32
    private var pausedByLimit = false

    /// Binds and listens. "::" accepts IPv4 too. `reusePort` lets several
    /// loops (one per core) listen on the same port with kernel balancing.
    public init(loop: EventLoop, address: SocketAddress, backlog: Int = 4096, reusePort: Bool = false) throws(RuntimeError) {
        self.loop = loop
        let fd = try Socket.make(for: address, type: Int32(SOCK_STREAM.rawValue))
        do throws(RuntimeError) {
            _ = Socket.setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
            if reusePort { _ = Socket.setOption(fd, SOL_SOCKET, SO_REUSEPORT, 1) }
            Socket.allowDualStack(fd, address)
            try Socket.bind(fd, address)
            guard listen(fd, Int32(clamping: backlog)) == 0 else { throw RuntimeError.lastErrno("listen on \(address)") }
        } catch {
            Glibc.close(fd)
            throw error
        }
        self.fd = fd
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

    /// Stops listening. Accepted connections are unaffected.
    public func close() {
        guard fd >= 0 else { return }
        if !pausedByLimit { loop.deregister(fd) }
        Glibc.close(fd)
        fd = -1
        onAccept = nil
    }

    func handleEvent(_ events: UInt32) {
        // Bounded so a connection storm cannot monopolise the loop.
        for _ in 0..<256 {
            guard fd >= 0 else { return }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let client = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    cshims_accept4(fd, $0, &length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
                }
            }
            if client < 0 {
                switch Glibc.errno {
                case EINTR, ECONNABORTED, EPROTO:
                    continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    pauseAccepting()
                    return
                default:
                    return  // EAGAIN: drained.
                }
            }
            let connection: TCPConnection
            do {
                connection = try TCPConnection(loop: loop, fd: client, remote: SocketAddress(storage: storage), local: nil)
            } catch {
                Glibc.close(client)
                continue
            }
            if let onAccept {
                onAccept(connection)
            } else {
                connection.abort()
            }
        }
    }

    /// Out of descriptors: the pending connection stays in the backlog and
    /// level-triggered epoll would spin on it, so stop watching for a moment.
    private func pauseAccepting() {
        guard !pausedByLimit else { return }
        pausedByLimit = true
        loop.deregister(fd)
        loop.schedule(after: .milliseconds(100)) { [weak self] in
            guard let self, self.fd >= 0 else { return }
            self.pausedByLimit = false
            do {
                try self.loop.register(self.fd, events: Epoll.in, handler: self)
            } catch {
                self.pauseAccepting()
            }
        }
    }
}

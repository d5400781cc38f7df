import CShims
import Glibc

extension TCPConnection {
    /// Opens a connection without blocking. `completion` is called exactly
    /// once, on a later loop turn: with the connection, or with an error such
    /// as "connect to 127.0.0.1:9: connection refused" or "...: timed out".
    public static func connect(
        loop: EventLoop,
        to address: SocketAddress,
        timeout: Duration,
        completion: @escaping (Result<TCPConnection, RuntimeError>) -> Void
    ) {
        let context = "connect to \(address)"
        let fd: Int32
        do {
            fd = try Socket.make(for: address, type: Int32(SOCK_STREAM.rawValue))
        } catch {
            loop.execute { completion(.failure(error.with(context: context))) }
            return
        }
        var result: Int32
        repeat {
            result = address.withSockaddr(asIPv6: false) { Glibc.connect(fd, $0, $1) }
        } while result < 0 && Glibc.errno == EINTR
        if result < 0 && Glibc.errno != EINPROGRESS {
            let error = RuntimeError.lastErrno(context)
            Glibc.close(fd)
            loop.execute { completion(.failure(error)) }
            return
        }
        let connector = Connector(loop: loop, fd: fd, address: address, completion: completion)
        connector.start(timeout: timeout)
    }
}

/// Waits for a non-blocking connect to finish (EPOLLOUT), or times out.
private final class Connector: EventHandler {
    private let loop: EventLoop
    private let fd: Int32
    private let address: SocketAddress
    private var completion: ((Result<TCPConnection, RuntimeError>) -> Void)?
    private var timer: Timer?

    init(loop: EventLoop, fd: Int32, address: SocketAddress,
         completion: @escaping (Result<TCPConnection, RuntimeError>) -> Void) {
        self.loop = loop
        self.fd = fd
        self.address = address
        self.completion = completion
    }

    func start(timeout: Duration) {
        do {
            try loop.register(fd, events: Epoll.out, handler: self)
        } catch {
            fail(error.with(context: "connect to \(address)"), registered: false)
            return
        }
        timer = loop.schedule(after: timeout) { [self] in
            fail(.timedOut("connect to \(address)"), registered: true)
        }
    }

    func handleEvent(_ events: UInt32) {
        guard completion != nil else { return }
        let code = Socket.intOption(fd, SOL_SOCKET, SO_ERROR)
        if code != 0 {
            fail(.system(code < 0 ? ECONNREFUSED : code, "connect to \(address)"), registered: true)
            return
        }
        timer?.cancel()
        loop.deregister(fd)
        let result: Result<TCPConnection, RuntimeError>
        do {
            result = .success(try TCPConnection(loop: loop, fd: fd, remote: address, local: nil))
        } catch {
            Glibc.close(fd)
            result = .failure(error.with(context: "connect to \(address)"))
        }
        report(result)
    }

    private func fail(_ error: RuntimeError, registered: Bool) {
        guard completion != nil else { return }
        timer?.cancel()
        if registered { loop.deregister(fd) }
        Glibc.close(fd)
        report(.failure(error))
    }

    private func report(_ result: Result<TCPConnection, RuntimeError>) {
        guard let completion else { return }
        self.completion = nil
        timer = nil
        loop.execute { completion(result) }
    }
}

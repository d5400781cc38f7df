import Glibc
import Synchronization

extension Resolver {
    /// How long a name lookup may take before it is reported as failed.
    public static let defaultTimeout = Duration.seconds(5)

    /// Resolves `host` without blocking the loop: getaddrinfo runs on a
    /// thread of its own and says it is done through a pipe the loop watches. `completion` runs on the loop, always on a later turn
    /// (never inside this call, even for a numeric address or an immediate
    /// failure), exactly once: with the addresses, the lookup's error, or
    /// after `timeout` with "the name lookup for HOST took too long".
    ///
    /// A lookup that times out cannot be stopped (getaddrinfo has no
    /// cancel); its thread finishes on its own and its answer is dropped.
    public static func resolve(host: String, port: UInt16, loop: EventLoop, timeout: Duration = defaultTimeout,
                               _ completion: @escaping (Result<[SocketAddress], RuntimeError>) -> Void) {
        resolve(host: host, port: port, loop: loop, timeout: timeout, lookup: { host, port throws(RuntimeError) in
            try Resolver.resolve(host: host, port: port)
        }, completion)
    }

    /// The blocking call is a parameter so tests can make one slower than any deadline.
    static func resolve(host: String, port: UInt16, loop: EventLoop, timeout: Duration, lookup: @escaping Lookup,
                        _ completion: @escaping (Result<[SocketAddress], RuntimeError>) -> Void) {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if let numeric = SocketAddress(ip: bare, port: port) {
            loop.execute { completion(.success([numeric])) }
            return
        }
        var fds: [Int32] = [-1, -1]
        // pipe2 is not exported to Swift; chatcli never forks, so setting
        // close-on-exec right after is as good.
        guard pipe(&fds) == 0 else {
            let error = RuntimeError.lastErrno("pipe")
            loop.execute { completion(.failure(error)) }
            return
        }
        for end in fds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        let fd = fds[0]
        let lookup = PendingLookup(host: host, port: port, writeEnd: fds[1], lookup: lookup)
        var watch: Watch?
        var timer: Timer?
        // Whichever comes first, the answer or the deadline, delivers; the
        // watch goes before its descriptor is closed.
        let finish = { (fallback: RuntimeError) in
            guard watch != nil else { return }
            watch?.cancel()
            watch = nil
            timer?.cancel()
            close(fd)
            completion(lookup.finish() ?? .failure(fallback))
        }
        do throws(RuntimeError) {
            watch = try loop.watchReadable(fd: fd) {
                finish(RuntimeError(kind: .resolve, reason: "no answer", context: "resolve \(host)"))
            }
        } catch {
            close(fd)
            close(fds[1])
            loop.execute { completion(.failure(error)) }
            return
        }
        timer = loop.schedule(after: timeout) {
            finish(RuntimeError(kind: .timedOut, reason: "the name lookup for \(host) took too long", context: "resolve \(host)"))
        }
        if let error = lookup.start() {
            watch?.cancel()
            watch = nil
            timer?.cancel()
            close(fd)
            close(fds[1])
            loop.execute { completion(.failure(error)) }
        }
    }
}

extension Resolver {
    /// A blocking name lookup, run off the loop.
    typealias Lookup = @Sendable (String, UInt16) throws(RuntimeError) -> [SocketAddress]
}

/// One getaddrinfo call on its own thread. The thread owns the pipe's
/// write end (it writes one byte when done and always closes it), the loop
/// owns the read end, so neither ever touches a descriptor the other closed.
/// An answer that comes after the loop gave up is dropped.
final class PendingLookup: @unchecked Sendable {
    // @unchecked: host, port and writeEnd never change; the result is inside `state`.
    private struct State {
        var result: Result<[SocketAddress], RuntimeError>?
        var abandoned = false
    }

    let host: String
    let port: UInt16
    let writeEnd: Int32
    let lookup: Resolver.Lookup
    private let state = Mutex(State())

    init(host: String, port: UInt16, writeEnd: Int32, lookup: @escaping Resolver.Lookup) {
        self.host = host
        self.port = port
        self.writeEnd = writeEnd
        self.lookup = lookup
    }

    /// Starts the thread; an error if it could not be created (then the caller closes both ends).
    func start() -> RuntimeError? {
        let rc = startDetachedThread { [self] in run() }
        return rc == 0 ? nil : .system(rc, "resolve \(host)")
    }

    /// On the lookup thread.
    private func run() {
        let result: Result<[SocketAddress], RuntimeError>
        do {
            result = .success(try lookup(host, port))
        } catch {
            result = .failure(error)
        }
        let wanted = state.withLock { state -> Bool in
            state.result = result
            return !state.abandoned
        }
        if wanted {
            var byte: UInt8 = 1
            _ = write(writeEnd, &byte, 1)
        }
        close(writeEnd)
    }

    /// On the loop: the answer if there is one yet; from now on nobody waits for it.
    func finish() -> Result<[SocketAddress], RuntimeError>? {
        state.withLock { state in
            state.abandoned = true
            return state.result
        }
    }
}

import CShims
import Glibc

extension EventLoop {
    /// Calls `handler` on the loop thread when one of `signals` arrives
    /// (e.g. `[SIGINT, SIGTERM]` for a graceful shutdown).
    ///
    /// The signals are blocked for the calling thread and read from a
    /// signalfd, so the handler is ordinary code, not an async-signal
    /// handler. Call this on the main thread before starting other threads:
    /// threads created later inherit the blocked mask, so a process-directed
    /// SIGTERM cannot land on a thread that would take the default action.
    /// A later call for the same signal replaces its handler.
    public func onSignal(_ signals: [Int32], _ handler: @escaping (Int32) -> Void) throws(RuntimeError) {
        if self.signals == nil {
            self.signals = SignalSource(loop: self)
        }
        guard let source = self.signals else { return }
        try source.add(signals, handler)
    }
}

/// One signalfd per loop covering every signal with a handler.
final class SignalSource: EventHandler {
    private let loop: EventLoop
    private var fd: Int32 = -1
    private var mask = sigset_t()
    private var handlers: [Int32: (Int32) -> Void] = [:]

    init(loop: EventLoop) {
        self.loop = loop
        sigemptyset(&mask)
    }

    func add(_ signals: [Int32], _ handler: @escaping (Int32) -> Void) throws(RuntimeError) {
        for signal in signals {
            guard sigaddset(&mask, signal) == 0 else {
                throw .system(EINVAL, "signal \(signal)")
            }
            handlers[signal] = handler
        }
        guard pthread_sigmask(SIG_BLOCK, &mask, nil) == 0 else {
            throw .lastErrno("pthread_sigmask")
        }
        // Passing the existing fd updates its mask in place.
        let newFD = signalfd(fd, &mask, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        guard newFD >= 0 else { throw .lastErrno("signalfd") }
        if fd < 0 {
            fd = newFD
            try loop.register(fd, events: Epoll.in, handler: self)
        }
    }

    func handleEvent(_ events: UInt32) {
        var info = signalfd_siginfo()
        let size = MemoryLayout<signalfd_siginfo>.size
        while true {
            let count = withUnsafeMutableBytes(of: &info) { read(fd, $0.baseAddress, size) }
            if count < 0 && Glibc.errno == EINTR { continue }
            guard count == size else { return }
            let signal = Int32(bitPattern: info.ssi_signo)
            handlers[signal]?(signal)
        }
    }
}

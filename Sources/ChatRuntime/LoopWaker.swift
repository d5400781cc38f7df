import ChatClient
import Glibc
import Runtime
import Synchronization

/// Lets worker threads wake the event loop (a file's reading thread that
/// read on after the loop found nothing): a pipe whose read end the loop
/// watches. Threads get only `signal`, which writes one byte; after
/// `close` it does nothing, so a late thread never writes to a descriptor
/// that was closed (and perhaps reused).
final class LoopWaker {
    let signal: WakeSignal
    private let readEnd: Int32
    private var watch: Watch?

    /// `onWake` runs on the loop, once per batch of signals.
    init(loop: EventLoop, onWake: @escaping () -> Void) throws(RuntimeError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            let code = errno
            throw RuntimeError(kind: .system(errno: code), reason: String(cString: strerror(code)), context: "pipe")
        }
        for end in fds {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        let fd = fds[0]
        readEnd = fd
        signal = WakeSignal(writeEnd: fds[1])
        do {
            watch = try loop.watchReadable(fd: fd) {
                var buffer = [UInt8](repeating: 0, count: 64)
                while read(fd, &buffer, buffer.count) > 0 {}
                onWake()
            }
        } catch {
            signal.close()
            Glibc.close(fd)
            throw error
        }
    }

    deinit { close() }

    func close() {
        guard let watch else { return }
        watch.cancel()
        self.watch = nil
        signal.close()
        Glibc.close(readEnd)
    }
}

/// The write end of a `LoopWaker`'s pipe, safe to call from any thread.
final class WakeSignal: Sendable {
    private let writeEnd: Mutex<Int32>

    init(writeEnd: Int32) { self.writeEnd = Mutex(writeEnd) }

    /// One byte into the pipe (a full pipe already wakes the loop).
    func callAsFunction() {
        writeEnd.withLock { fd in
            guard fd >= 0 else { return }
            var byte: UInt8 = 1
            _ = write(fd, &byte, 1)
        }
    }

    func close() {
        writeEnd.withLock { fd in
            if fd >= 0 { Glibc.close(fd) }
            fd = -1
        }
    }
}

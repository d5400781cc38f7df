import Glibc
import Runtime

/// Reads stdin on the event loop, line by line, and reports end of input.
/// Lines are kept (in order) for the data channel of a later version.
public final class StandardInput {
    let loop: EventLoop
    var watch: Watch?
    var pending: [UInt8] = []
    public private(set) var lines: [String] = []

    public init(loop: EventLoop) { self.loop = loop }

    /// Regular files and /dev/null cannot be watched with epoll (EPERM);
    /// they never block, so they are read to the end right away instead.
    public func start(onEnd: @escaping () -> Void) {
        do {
            watch = try loop.watchReadable(fd: 0) { [weak self] in
                if self?.readChunk() == false {
                    self?.stop()
                    onEnd()
                }
            }
        } catch {
            // EPERM: a file; anything else (stdin closed): no input at all.
            let readable = error.errno == EPERM
            loop.execute { [weak self] in
                while readable, self?.readChunk() == true {}
                onEnd()
            }
        }
    }

    /// Reads once; false at end of input or on a hard error.
    private func readChunk() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if n > 0 {
            pending.append(contentsOf: buffer[0..<n])
            splitLines()
            return true
        }
        return n < 0 && (errno == EINTR || errno == EAGAIN)
    }

    public func stop() {
        watch?.cancel()
        watch = nil
    }

    private func splitLines() {
        while let newline = pending.firstIndex(of: 0x0A) {
            var line = Array(pending[..<newline])
            pending.removeSubrange(...newline)
            if line.last == 0x0D { line.removeLast() }
            if !line.isEmpty { lines.append(String(decoding: line, as: UTF8.self)) }
        }
    }
}

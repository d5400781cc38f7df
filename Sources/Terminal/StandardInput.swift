import Glibc
import Runtime

/// Reads stdin on the event loop and hands over each non-empty line (a
/// trailing CR removed, WireProtocol §4); reports end of input. A line longer
/// than `maxLineBytes` is reported by its size and dropped, never buffered
/// whole.
public final class StandardInput {
    let loop: EventLoop
    var watch: Watch?
    var pending: [UInt8] = []
    var overlong = 0
    public var maxLineBytes = 262_144
    public var onLine: ((String) -> Void)?
    /// A dropped overlong line, with its size in bytes.
    public var onOverlong: ((Int) -> Void)?

    public init(loop: EventLoop) { self.loop = loop }

    /// Asked before every read: false holds the input back (a pipe then
    /// fills and blocks its writer; a file waits at its offset), and it is
    /// asked again every `recheckInterval` until true.
    public var mayRead: () -> Bool = { true }
    static let recheckInterval: Duration = .milliseconds(20)
    private var fromFile = false
    private var recheck: Timer?
    private var onEnd: () -> Void = {}

    /// Regular files and /dev/null cannot be watched with epoll (EPERM);
    /// they never block, so they are read a chunk per turn of the loop instead.
    public func start(onEnd: @escaping () -> Void) {
        self.onEnd = onEnd
        do {
            try watchInput()
        } catch {
            // EPERM: a file; anything else (stdin closed): no input at all.
            fromFile = error.errno == EPERM
            loop.execute { [weak self] in self?.readFile() }
        }
    }

    public func stop() {
        watch?.cancel()
        watch = nil
        recheck?.cancel()
        recheck = nil
    }

    private func watchInput() throws(RuntimeError) {
        watch = try loop.watchReadable(fd: 0) { [weak self] in self?.readable() }
    }

    private func readable() {
        guard mayRead() else { return holdBack() }
        if !readChunk() { end() }
    }

    private func readFile() {
        guard fromFile else { return end() }
        guard mayRead() else { return holdBack() }
        if readChunk() {
            loop.execute { [weak self] in self?.readFile() }
        } else {
            end()
        }
    }

    private func holdBack() {
        watch?.cancel()
        watch = nil
        recheck = loop.schedule(after: Self.recheckInterval) { [weak self] in self?.resume() }
    }

    private func resume() {
        recheck = nil
        guard mayRead() else { return holdBack() }
        if fromFile {
            readFile()
        } else if (try? watchInput()) == nil {
            end()
        }
    }

    private func end() {
        finish()
        stop()
        onEnd()
    }

    /// Reads once; false at end of input or on a hard error.
    private func readChunk() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if n > 0 {
            split(buffer[0..<n])
            return true
        }
        return n < 0 && (errno == EINTR || errno == EAGAIN)
    }

    private func split(_ chunk: ArraySlice<UInt8>) {
        var rest = chunk
        while let newline = rest.firstIndex(of: 0x0A) {
            append(rest[rest.startIndex..<newline])
            emitLine()
            rest = rest[(newline + 1)...]
        }
        append(rest)
    }

    private func append(_ bytes: ArraySlice<UInt8>) {
        if overlong > 0 || pending.count + bytes.count > maxLineBytes + 1 {
            overlong += pending.count + bytes.count   // +1 above: room for a CR before the LF
            pending = []
        } else {
            pending.append(contentsOf: bytes)
        }
    }

    private func emitLine() {
        if overlong > 0 {
            onOverlong?(overlong)
            overlong = 0
            return
        }
        var line = pending
        pending = []
        if line.last == 0x0D { line.removeLast() }
        if line.count > maxLineBytes {
            onOverlong?(line.count)
        } else if !line.isEmpty {
            onLine?(String(decoding: line, as: UTF8.self))
        }
    }

    /// A last line without a newline still counts.
    private func finish() {
        if !pending.isEmpty || overlong > 0 { emitLine() }
    }
}

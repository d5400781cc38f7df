import Wire

/// Reads one file's DATA messages ahead on a thread of its own, hashing
/// them in order, so the event loop only takes finished messages: reading
/// and SHA-256 were about a third of the sending process's time. The
/// thread reads from `offset` to `size` (when known, else the end of the
/// stream), at most `limit` bytes ahead, and stops at the end, on a read
/// error, or at `close`; `close` returns once it has stopped touching the
/// source. `hasher` is only read by the loop after `poll` returned `.end`.
/// The same thread proves a resume: it hashes the prefix both sides claim
/// to share (the sender's file, the receiver's `.part`), so neither loop
/// waits for a gigabyte to be read. The loop never waits for the disk: `poll` answers nil
/// while nothing is read yet, and the thread calls `wake` once it has
/// something for a loop that found nothing.
final class ReadAhead: @unchecked Sendable {
    // @unchecked: every var is used with `monitor` locked; `readBytes` (and the
    // source or sink it reads) and `hasher` only by the thread until it has
    // finished (`running` false).
    enum Output {
        /// A DATA message (tag byte and file bytes), and how many file bytes it holds.
        case chunk([UInt8], Int)
        /// No more bytes: the entry's size was reached, or the stream ended.
        case end
        case failure(TransferError)
    }

    /// Reads up to the buffer's size from an offset; 0 at the end. Called on the thread only.
    typealias Read = (UInt64, UnsafeMutableRawBufferPointer) throws(TransferError) -> Int

    let readBytes: Read
    let size: UInt64?
    let chunkSize: Int
    let limit: Int
    let hasher: SHA256
    let monitor = Monitor()
    var outputs = Deque<Output>()
    var queued = 0
    var closed = false
    var running = true
    /// The loop found nothing (`poll` answered nil): the next output wakes it.
    var wanted = false
    let wake: @Sendable () -> Void

    /// Entry `entry` of `source` from `offset`.
    convenience init(source: TransferSource, entry: Int, offset: UInt64, size: UInt64?, chunkSize: Int, hasher: SHA256,
                     limit: Int = 8 << 20, wake: @escaping @Sendable () -> Void) {
        self.init(name: source.entries[entry].path, offset: offset, size: size, chunkSize: chunkSize, hasher: hasher, limit: limit, wake: wake) {
            (offset, buffer) throws(TransferError) in try source.read(entry: entry, offset: offset, into: buffer)
        }
    }

    /// Whatever `read` reads (`name` for the error when no thread starts).
    init(name: String, offset: UInt64, size: UInt64?, chunkSize: Int, hasher: SHA256, limit: Int = 8 << 20,
         wake: @escaping @Sendable () -> Void, read: @escaping Read) {
        self.wake = wake
        self.readBytes = read
        self.size = size
        self.chunkSize = chunkSize
        self.hasher = hasher
        self.limit = max(chunkSize, limit)
        if !startWorkerThread({ [self] in run(from: offset) }) {
            running = false
            outputs.append(.failure(TransferError("cannot start a thread to read \(name)")))
        }
    }

    deinit { close() }

    /// On the loop: the next output, or nil when the thread has none yet
    /// (it calls `wake` when it has).
    func poll() -> Output? {
        monitor.lock()
        defer { monitor.unlock() }
        guard let output = outputs.popFirst() else {
            if running {
                wanted = true
                return nil
            }
            return .end
        }
        if case .chunk(let message, _) = output { queued -= message.count }
        monitor.broadcast()
        return output
    }

    /// On the loop: stops the thread and waits until it no longer reads.
    func close() {
        monitor.lock()
        closed = true
        monitor.broadcast()
        while running { monitor.wait() }
        monitor.unlock()
    }

    /// On the reading thread.
    func run(from start: UInt64) {
        var offset = start
        while true {
            monitor.lock()
            while queued >= limit && !closed { monitor.wait() }
            let stop = closed
            monitor.unlock()
            if stop { break }
            let output = read(at: offset)
            monitor.lock()
            outputs.append(output)
            if case .chunk(let message, let n) = output {
                queued += message.count
                offset += UInt64(n)
            }
            let waking = wanted
            wanted = false
            monitor.broadcast()
            monitor.unlock()
            if waking { wake() }
            guard case .chunk = output else { break }
        }
        monitor.lock()
        running = false
        let waking = wanted
        wanted = false
        monitor.broadcast()
        monitor.unlock()
        if waking { wake() }
    }

    func read(at offset: UInt64) -> Output {
        let want = size.map { Int(min(UInt64(chunkSize), $0 - offset)) } ?? chunkSize
        if want == 0 { return .end }
        var message = [UInt8](repeating: 0, count: want + 1)
        message[0] = TransferMessage.Tag.data.rawValue
        let n: Int
        do {
            n = try message.withUnsafeMutableBytes { raw in
                Result { () throws(TransferError) in try readBytes(offset, UnsafeMutableRawBufferPointer(rebasing: raw[1...])) }
            }.get()
        } catch {
            return .failure(error)
        }
        if n == 0 { return .end }
        if n < want { message.removeLast(want - n) }
        hasher.update(message[1...])
        return .chunk(message, n)
    }
}

/// A resume's shared prefix being hashed on `ReadAhead`'s thread (the
/// sender's own file, the receiver's `.part`): the loop takes the chunks
/// as they come, counting them, and never waits for the disk.
final class PrefixProof {
    let reading: ReadAhead
    /// File bytes hashed so far.
    private(set) var read: UInt64 = 0

    init(reading: ReadAhead) { self.reading = reading }

    /// Nil while the thread reads on; then the prefix's hasher (the thread
    /// is done with it) or the read's failure.
    func poll() -> Result<SHA256, TransferError>? {
        while let output = reading.poll() {
            switch output {
            case .chunk(_, let n): read += UInt64(n)
            case .end: return .success(reading.hasher)
            case .failure(let error): return .failure(error)
            }
        }
        return nil
    }

    func close() { reading.close() }
}

extension PrefixProof {
    /// The same proof on the caller's thread (a side without read-ahead):
    /// up to `length` bytes through `read`, in 1 MiB pieces, stopping early
    /// at the end. The prefix's hasher and how many bytes it hashed.
    static func hash(length: UInt64, read: ReadAhead.Read) throws(TransferError) -> (SHA256, UInt64) {
        let prefix = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var done: UInt64 = 0
        while done < length {
            let want = Int(min(UInt64(buffer.count), length - done))
            let n = try buffer.withUnsafeMutableBytes { raw in
                Result { () throws(TransferError) in try read(done, UnsafeMutableRawBufferPointer(rebasing: raw[0..<want])) }
            }.get()
            guard n > 0 else { break }
            prefix.update(buffer[0..<n])
            done += UInt64(n)
        }
        return (prefix, done)
    }
}

import Wire

/// A `TransferSink` that writes and hashes on a thread of its own, so the
/// event loop only hands chunks over: on a 2-core machine the receiving
/// process otherwise spends about two fifths of its time in `write` and
/// SHA-256 on the loop, while the network waits. At most `limit` bytes wait:
/// what a `kill -9` loses. The loop never waits for them: `hasRoom(orWake:)`
/// says when the queue is full (the receiver then leaves the next DATA
/// unconsumed, and SCTP's window stops the peer) and the thread wakes the
/// loop once half of it is written; `flushed(orWake:)` does the same for a
/// file's end. Every other call needs the queue empty, and a receiver that
/// is woken only makes them once `flushed` said so (FileReceiver's states
/// guarantee it), so their `drain` returns at once; only a caller without a
/// wake (no pipe for it) still waits there, and in a write to a full queue,
/// as it would for a slow disk. `abandon` does not wait either: the thread
/// writes what is queued (a resume need not send it again), then abandons
/// `inner`; until it has, every `WriteBehindSink` of the process answers
/// `flushed` with false (`Retiring`), so the next receiver opens no file
/// (the same `.part`, perhaps) while the old one still writes to it. A
/// failed write is thrown by the next write, by `flush` or by the next
/// other call; what follows it is dropped.
public final class WriteBehindSink: TransferSink {
    let inner: TransferSink
    let queue: WriteQueue
    var started = false

    /// Bytes that may wait for the thread: what a `kill -9` of the receiver
    /// loses beyond the file (and a resume sends again).
    public static let defaultLimit = 4 << 20

    public init(_ inner: TransferSink, limit: Int = WriteBehindSink.defaultLimit) {
        self.inner = inner
        queue = WriteQueue(inner: inner, limit: limit)
    }

    deinit { queue.close() }

    public func write(_ bytes: ArraySlice<UInt8>) throws(TransferError) { try enqueue(bytes, nil) }

    public func write(_ bytes: ArraySlice<UInt8>, hashingInto hasher: SHA256) throws(TransferError) { try enqueue(bytes, hasher) }

    func enqueue(_ bytes: ArraySlice<UInt8>, _ hasher: SHA256?) throws(TransferError) {
        if !started {
            started = true
            if !queue.startThread() {   // no thread: write here, as a plain sink would
                queue.inline = true
            }
        }
        try queue.push(bytes, hasher)
    }

    public func flush() throws(TransferError) { try queue.drain() }

    public func flushed(orWake wake: @escaping @Sendable () -> Void) throws(TransferError) -> Bool {
        try queue.isDrained(orWake: wake)
    }

    public func hasRoom(orWake wake: @escaping @Sendable () -> Void) -> Bool { queue.hasRoom(orWake: wake) }

    public func refusal(of offer: TransferOffer) -> TransferError? { inner.refusal(of: offer) }

    public func begin(_ offer: TransferOffer, name: SafePath) throws(TransferError) {
        try queue.drain()
        try inner.begin(offer, name: name)
    }

    public func makeFolder(_ path: SafePath, mode: UInt16) throws(TransferError) {
        try queue.drain()
        try inner.makeFolder(path, mode: mode)
    }

    public func openFile(_ path: SafePath, size: UInt64) throws(TransferError) -> UInt64 {
        try queue.drain()
        return try inner.openFile(path, size: size)
    }

    public func readExisting(offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws(TransferError) -> Int {
        try queue.drain()
        return try inner.readExisting(offset: offset, into: buffer)
    }

    public func truncate(to length: UInt64) throws(TransferError) {
        try queue.drain()
        try inner.truncate(to: length)
    }

    public func closeFile(mode: UInt16, verified: Bool) throws(TransferError) {
        try queue.drain()
        try inner.closeFile(mode: mode, verified: verified)
    }

    public func finish() throws(TransferError) -> String {
        try queue.drain()
        return try inner.finish()
    }

    /// On the thread, after what is queued, unless nothing is.
    public func abandon() {
        if queue.abandonLater() { return }
        inner.abandon()
    }
}

/// The chunks between the loop and the writing thread, under one lock.
final class WriteQueue: @unchecked Sendable {
    // @unchecked: every var below is used with `monitor` locked, except
    // `inner` and the hashers, which only the thread that took an item off
    // the queue uses until the queue is empty again (`drain`, `isDrained`),
    // and after an `.abandon` item only the thread. No checked type fits:
    // `Synchronization.Mutex` has no condition to wait on, and the sink and
    // hashers are non-Sendable classes handed back and forth, not moved once.
    enum Item {
        case write(ArraySlice<UInt8>, SHA256?)
        /// The receiver stopped: `inner.abandon()`, then `Retiring.leave()`.
        case abandon

        var count: Int {
            if case .write(let bytes, _) = self { return bytes.count }
            return 0
        }
    }

    let inner: TransferSink
    let limit: Int
    let monitor = Monitor()
    var items = Deque<Item>()
    var queued = 0
    var busy = false
    var closed = false
    var failure: TransferError?
    /// No thread could be started: writes happen in `push`.
    var inline = false
    /// Called by the thread once the queue is empty (`isDrained(orWake:)` found it was not).
    var whenDrained: (@Sendable () -> Void)?
    /// Called by the thread once at most half of `limit` is queued (`hasRoom(orWake:)` found it full).
    var whenRoom: (@Sendable () -> Void)?

    init(inner: TransferSink, limit: Int) {
        self.inner = inner
        self.limit = max(1, limit)
    }

    /// False if no thread could be created.
    func startThread() -> Bool { startWorkerThread { [self] in run() } }

    /// On the loop, without waiting: whether a chunk may be queued now; if
    /// not, the thread calls `wake` once half the queue is written. A
    /// failure answers true: the next write throws it.
    func hasRoom(orWake wake: @escaping @Sendable () -> Void) -> Bool {
        monitor.lock()
        defer { monitor.unlock() }
        if inline || failure != nil || queued < limit { return true }
        whenRoom = wake
        return false
    }

    /// On the loop, without waiting: false when nothing is queued or being
    /// written (the caller abandons `inner` itself); else the thread does
    /// once the queue is written, and the process counts one more `Retiring` sink until then.
    func abandonLater() -> Bool {
        monitor.lock()
        defer { monitor.unlock() }
        guard !inline, busy || !items.isEmpty else { return false }
        Retiring.enter()
        items.append(.abandon)
        monitor.broadcast()
        return true
    }

    /// On the loop: queues a chunk, waiting while `limit` bytes are queued
    /// (only for a caller that did not ask `hasRoom(orWake:)`).
    func push(_ bytes: ArraySlice<UInt8>, _ hasher: SHA256?) throws(TransferError) {
        if inline {
            if let failure { throw failure }
            do {
                try inner.write(bytes)
            } catch {
                failure = error
                throw error
            }
            hasher?.update(bytes)
            return
        }
        monitor.lock()
        while queued >= limit && failure == nil { monitor.wait() }
        if let failure {
            monitor.unlock()
            throw failure
        }
        items.append(.write(bytes, hasher))
        queued += bytes.count
        monitor.broadcast()
        monitor.unlock()
    }

    /// On the loop: waits until every queued chunk is written; a failure if one failed.
    func drain() throws(TransferError) {
        monitor.lock()
        while !items.isEmpty || busy { monitor.wait() }
        let failure = failure
        monitor.unlock()
        if let failure { throw failure }
    }

    /// On the loop, without waiting: whether every queued chunk is written (a failure is thrown if one failed)
    /// and no abandoned sink of the process still writes; if not, `wake` is called once that is so.
    func isDrained(orWake wake: @escaping @Sendable () -> Void) throws(TransferError) -> Bool {
        monitor.lock()
        if !items.isEmpty || busy {
            whenDrained = wake
            monitor.unlock()
            return false
        }
        let failure = failure
        monitor.unlock()
        if let failure { throw failure }
        return Retiring.isIdle(orWake: wake)
    }

    /// The thread ends once the queue is empty.
    func close() {
        monitor.lock()
        closed = true
        monitor.broadcast()
        monitor.unlock()
    }

    /// On the writing thread.
    func run() {
        monitor.lock()
        while true {
            while items.isEmpty && !closed { monitor.wait() }
            guard let item = items.popFirst() else { break }
            busy = true
            let skip = failure != nil
            monitor.unlock()
            var failed: TransferError?
            switch item {
            case .write(let bytes, let hasher) where !skip:
                do {
                    try inner.write(bytes)
                    hasher?.update(bytes)
                } catch {
                    failed = error
                }
            case .write:
                break
            case .abandon:
                inner.abandon()
                Retiring.leave()
            }
            monitor.lock()
            if let failed, failure == nil { failure = failed }
            queued -= item.count
            busy = false
            monitor.broadcast()
            var wakes: [@Sendable () -> Void] = []
            if queued <= limit / 2, let wake = whenRoom {
                whenRoom = nil
                wakes.append(wake)
            }
            if items.isEmpty, let wake = whenDrained {
                whenDrained = nil
                wakes.append(wake)
            }
            if !wakes.isEmpty {
                monitor.unlock()
                for wake in wakes { wake() }
                monitor.lock()
            }
        }
        monitor.unlock()
    }
}

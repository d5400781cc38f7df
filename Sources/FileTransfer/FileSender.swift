import Wire
/// The sending side of one transfer as a sans-IO state machine: messages
/// from the receiver in, messages to send out (`pollMessage`, one DATA
/// chunk at a time so the driver can stop when the channel's send buffer
/// is full), events for the user. File contents come from a `TransferSource`.
public final class FileSender {
    public enum Event: Equatable, Sendable {
        case accepted
        case declined(String)
        /// A file arrived (`ok`: the receiver's hash matched ours).
        case fileDone(path: String, ok: Bool)
        /// The receiver has everything; `mismatches` files failed verification.
        case finished(mismatches: Int)
        /// The transfer stopped (the peer's or our own reason).
        case failed(String)
    }

    enum State: Equatable {
        case idle, offered, nextEntry, awaitingResume, proving(offset: UInt64), streaming, awaitingComplete, finished, failed
    }

    public let source: TransferSource
    let chunkSize: Int
    var state: State = .idle
    var entryIndex = 0
    var offset: UInt64 = 0
    var hasher = SHA256()
    var outbox = Deque<[UInt8]>()
    var events = Deque<Event>()
    var pendingResults = Deque<String>()
    var mismatches = 0

    /// File bytes handed to the channel, and bytes the receiver already had (resumed).
    public private(set) var bytesSent: UInt64 = 0
    public internal(set) var bytesSkipped: UInt64 = 0

    /// Whether files are read (and hashed) ahead on a thread of their own.
    let readsAhead: Bool
    var readAhead: ReadAhead?
    /// The resumed prefix being hashed (FileSender+Resume).
    var proof: (reading: PrefixProof, offset: UInt64, theirs: [UInt8])?
    /// Called from the reading thread when data the caller found missing is there.
    let wake: @Sendable () -> Void

    /// `readAhead`: read and hash a file's data on a thread of its own
    /// (`ReadAhead`), for sources that can seek; else on the caller's. Then
    /// `pollMessage` never waits for the disk: it answers nil until the
    /// thread has read on, and the thread calls `wake` (from its own
    /// thread) when it has.
    public init(source: TransferSource, chunkSize: Int = TransferMessage.maxChunkSize, readAhead: Bool = false,
                wake: @escaping @Sendable () -> Void = {}) {
        self.source = source
        self.chunkSize = max(1, min(chunkSize, TransferMessage.maxChunkSize))
        readsAhead = readAhead && source.canSeek
        self.wake = wake
    }

    /// The last `pollMessage` found the reading thread behind: `wake` follows
    /// (or came already), then `pollMessage` has more.
    public internal(set) var isWaitingForDisk = false

    deinit {
        readAhead?.close()
        proof?.reading.close()
    }

    public var offer: TransferOffer { source.offer }
    public var isFinished: Bool { state == .finished || state == .failed }
    /// Bytes accounted for (sent or resumed), for progress.
    public var bytesDone: UInt64 { bytesSent + bytesSkipped }

    public func start() {
        guard state == .idle else { return }
        outbox.append(TransferMessage.offer(source.offer).encode())
        state = .offered
    }

    public func pollEvent() -> Event? { events.popFirst() }

    /// Stops the transfer and tells the receiver why.
    public func cancel(_ reason: String) { cancel(TransferError(reason)) }

    /// Tells the receiver the cause without our local paths (`peerMessage`).
    func cancel(_ error: TransferError) {
        guard !isFinished else { return }
        outbox.append(TransferMessage.abort(error.peerMessage).encode())
        fail(error.message)
    }

    /// The channel closed or the connection went away before the end.
    public func channelClosed() {
        guard !isFinished else { return }
        fail("the connection to the receiver closed before the transfer ended")
    }

    // MARK: Input

    public func handle(message bytes: [UInt8]) {
        guard !isFinished else { return }
        guard let message = TransferMessage.decode(bytes) else { return violation("an undecodable message") }
        switch (state, message) {
        case (_, .abort(let reason)):
            fail("the receiver stopped the transfer: \(reason)")
        case (.offered, .accept):
            events.append(.accepted)
            state = .nextEntry
        case (.offered, .decline(let reason)):
            events.append(.declined(reason))
            state = .finished
        case (.awaitingResume, .resume(let theirs, let prefixHash)):
            let entry = source.entries[entryIndex]
            if source.canSeek, theirs > 0, theirs <= entry.size {
                state = .proving(offset: theirs)
                startProof(offset: theirs, prefixHash: prefixHash)
            } else {
                startData(at: 0)
            }
        case (_, .result(let ok)):
            guard let path = pendingResults.popFirst() else { return violation("an unexpected result") }
            if !ok { mismatches += 1 }
            events.append(.fileDone(path: path, ok: ok))
        case (.awaitingComplete, .complete):
            guard pendingResults.isEmpty else { return violation("completion before every result") }
            state = .finished
            events.append(.finished(mismatches: mismatches))
        default:
            violation("an unexpected message")
        }
    }

    // MARK: Output

    /// The next message to send, or nil until more input arrives. DATA
    /// chunks are read from the source here, one per call.
    public func pollMessage() -> [UInt8]? {
        isWaitingForDisk = false
        if let message = outbox.popFirst() { return message }
        switch state {
        case .nextEntry: sendNextEntry()
        case .proving: pollProof()
        case .streaming: return nextChunk()
        default: return nil
        }
        return outbox.popFirst()
    }

    func sendNextEntry() {
        let entries = source.entries
        while entryIndex < entries.count {
            let entry = entries[entryIndex]
            outbox.append(TransferMessage.entry(entry).encode())
            if entry.kind == .file {
                state = .awaitingResume
                return
            }
            entryIndex += 1
        }
        outbox.append(TransferMessage.done.encode())
        state = .awaitingComplete
    }

    func startData(at start: UInt64) {
        if start == 0 { hasher = SHA256() }
        offset = start
        outbox.append(TransferMessage.start(offset: start).encode())
        state = .streaming
        if readsAhead {
            let entry = source.entries[entryIndex]
            readAhead = ReadAhead(source: source, entry: entryIndex, offset: start,
                                  size: entry.size == TransferMessage.unknownSize ? nil : entry.size, chunkSize: chunkSize, hasher: hasher,
                                  wake: wake)
        }
    }

    func nextChunk() -> [UInt8]? {
        let entry = source.entries[entryIndex]
        let known = entry.size != TransferMessage.unknownSize
        if let readAhead {
            guard let output = readAhead.poll() else {
                isWaitingForDisk = true   // the disk has not caught up: `wake` follows
                return nil
            }
            switch output {
            case .chunk(let message, let n):
                offset += UInt64(n)
                bytesSent += UInt64(n)
                return message
            case .end:
                self.readAhead = nil
                if known && offset < entry.size {
                    cancel("\(entry.path) got shorter while it was being sent")
                    return outbox.popFirst()
                }
                return finishFile(entry)
            case .failure(let error):
                cancel(error)
                return outbox.popFirst()
            }
        }
        let want = known ? Int(min(UInt64(chunkSize), entry.size - offset)) : chunkSize
        if want == 0 { return finishFile(entry) }
        var message = [UInt8](repeating: 0, count: want + 1)
        message[0] = TransferMessage.Tag.data.rawValue
        let n: Int
        do {
            n = try message.withUnsafeMutableBytes { raw in
                Result { () throws(TransferError) in
                    try source.read(entry: entryIndex, offset: offset, into: UnsafeMutableRawBufferPointer(rebasing: raw[1...]))
                }
            }.get()
        } catch {
            cancel(error)
            return outbox.popFirst()
        }
        if n == 0 {
            if known {
                cancel("\(entry.path) got shorter while it was being sent")
                return outbox.popFirst()
            }
            return finishFile(entry)
        }
        if n < want { message.removeLast(want - n) }
        hasher.update(message[1...])
        offset += UInt64(n)
        bytesSent += UInt64(n)
        return message
    }

    func finishFile(_ entry: TransferEntry) -> [UInt8]? {
        pendingResults.append(entry.path)
        entryIndex += 1
        state = .nextEntry
        return TransferMessage.end(sha256: hasher.digest()).encode()
    }

    func violation(_ what: String) {
        cancel("protocol violation: \(what)")
    }

    func fail(_ reason: String) {
        readAhead?.close()
        readAhead = nil
        proof?.reading.close()
        proof = nil
        state = .failed
        events.append(.failed(reason))
    }
}

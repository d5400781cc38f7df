import Wire
/// The receiving side of one transfer as a sans-IO state machine. It
/// trusts nothing: every name becomes a `SafePath` or the transfer stops,
/// no file grows past its entry's size, the entries together never exceed
/// the offered size and count, and messages out of order end the transfer.
/// Bytes go to a `TransferSink`.
public final class FileReceiver {
    public enum Event: Equatable, Sendable {
        /// What the sender offers; answer with `accept()` or `decline(_:)`.
        case offer(TransferOffer)
        /// A file's data starts (`resumedFrom`: bytes already here, proven by hash).
        case fileStarted(path: String, size: UInt64, resumedFrom: UInt64)
        case fileDone(path: String, ok: Bool)
        /// Everything is in place at `location`; `mismatches` files failed verification.
        case finished(location: String, mismatches: Int)
        case failed(String)
    }

    enum State: Equatable {
        case awaitingOffer, awaitingUser, awaitingEntry, proving, awaitingStart, receiving, finished, failed
        /// A file's END arrived: its writes are finishing on the sink's thread before its hash is checked.
        case flushing
    }

    public let sink: TransferSink
    var state: State = .awaitingOffer
    public private(set) var offer: TransferOffer?
    var entriesSeen: UInt64 = 0
    var offeredBytesClaimed: UInt64 = 0
    var current: (entry: TransferEntry, path: SafePath)?
    var existing: UInt64 = 0
    var received: UInt64 = 0
    var hasher = SHA256()
    var prefixHasher: SHA256?
    var outbox = Deque<[UInt8]>()
    var events = Deque<Event>()
    var mismatches = 0

    /// File bytes written, and bytes that were already here (resumed).
    public private(set) var bytesReceived: UInt64 = 0
    public private(set) var bytesResumed: UInt64 = 0

    /// Whether the `.part` already here is hashed on a thread of its own
    /// when a transfer resumes (FileReceiver+Resume); `wake` is called from
    /// that thread when it is done.
    let readsAhead: Bool
    let wake: @Sendable () -> Void
    var proof: PrefixProof?
    /// The hash a file's END announced, while its writes finish (`flushing`).
    var announcedDigest: [UInt8]?
    /// What the sender sent after END while the writes finish: the next entries or DONE, taken once they are.
    var held = Deque<[UInt8]>()
    /// The last `pollMessage` found the hashing thread still at work: `wake` follows.
    public internal(set) var isWaitingForDisk = false
    /// The last `handle(message:)` left DATA unconsumed (the write queue is full): `wake` follows.
    public private(set) var isWaitingForRoom = false

    public init(sink: TransferSink, readAhead: Bool = false, wake: @escaping @Sendable () -> Void = {}) {
        self.sink = sink
        readsAhead = readAhead
        self.wake = wake
    }

    deinit { proof?.close() }

    public var isFinished: Bool { state == .finished || state == .failed }
    /// The offer is shown and waits for `accept()` or `decline(_:)`.
    public var isAwaitingAnswer: Bool { state == .awaitingUser }
    public var bytesDone: UInt64 { bytesReceived + bytesResumed }

    public func pollMessage() -> [UInt8]? {
        isWaitingForDisk = false
        // A flush may end in a resume's proof (the next entry waited for the disk): flush first.
        if state == .flushing { pollFlush() }
        if state == .proving { pollProof() }
        return outbox.popFirst()
    }
    public func pollEvent() -> Event? { events.popFirst() }

    // MARK: The user's answer

    public func accept() {
        guard state == .awaitingUser, let offer else { return }
        do {
            try sink.begin(offer, name: try SafePath(name: offer.name))
        } catch let refusal as SafePath.Refusal {
            return stop("the offered name has \(refusal)")
        } catch let error as TransferError {
            return stop(error)
        } catch {
            return stop("\(error)")
        }
        outbox.append(TransferMessage.accept.encode())
        state = .awaitingEntry
    }

    public func decline(_ reason: String = "declined") {
        guard state == .awaitingUser else { return }
        outbox.append(TransferMessage.decline(reason).encode())
        state = .finished
    }

    /// Stops the transfer (Ctrl-C, a local failure) and tells the sender why.
    public func cancel(_ reason: String) { stop(reason) }

    public func channelClosed() {
        guard !isFinished else { return }
        endProof()
        abandonSink()
        fail("the connection to the sender closed before the transfer ended")
    }

    // MARK: Input

    /// Takes one message from the sender. False when it is DATA that the
    /// sink has no room for yet (its write queue is full): the message is
    /// not consumed, `wake` follows, and the caller offers it again then
    /// (leaving what comes after it unread, so SCTP's window stops the sender).
    @discardableResult
    public func handle(message bytes: [UInt8]) -> Bool {
        guard !isFinished else { return true }
        guard let message = TransferMessage.decode(bytes) else {
            stop("protocol violation: an undecodable message")
            return true
        }
        if state == .flushing {
            if case .abort = message {} else {
                hold(bytes)
                return true
            }
        }
        if readsAhead, state == .receiving, case .data = message, !sink.hasRoom(orWake: wake) {
            isWaitingForRoom = true
            return false
        }
        isWaitingForRoom = false
        take(message, bytes)
        return true
    }

    func take(_ message: TransferMessage, _ bytes: [UInt8]) {
        switch (state, message) {
        case (_, .abort(let reason)):
            endProof()
            abandonSink()
            fail("the sender stopped the transfer: \(reason)")
        case (.awaitingOffer, .offer(let offer)):
            self.offer = offer
            state = .awaitingUser
            events.append(.offer(offer))
            // Declined before anyone is asked: accepting could only fail later.
            if let refusal = sink.refusal(of: offer) {
                outbox.append(TransferMessage.decline(refusal.peerMessage).encode())
                fail(refusal.message)
            }
        case (.awaitingEntry, .entry(let entry)):
            // An earlier sink of this process may still be writing (to this `.part`, perhaps) after its abandon.
            if readsAhead {
                state = .flushing
                hold(bytes)
                return pollFlush()
            }
            handleEntry(entry)
        case (.awaitingEntry, .done):
            finishAll()
        case (.awaitingStart, .start(let offset)):
            handleStart(offset)
        case (.receiving, .data(let chunk)):
            handleData(chunk)
        case (.receiving, .end(let sha256)):
            handleEnd(sha256)
        default:
            stop("protocol violation: an unexpected message")
        }
    }

    func handleEntry(_ entry: TransferEntry) {
        guard let offer else { return }
        entriesSeen += 1
        guard entriesSeen <= UInt64(offer.fileCount) + UInt64(offer.folderCount) else { return stop("the sender sent more entries than it offered") }
        let path: SafePath
        do {
            path = try SafePath(relative: entry.path)
        } catch {
            return stop("the sender sent a path with \(error)")
        }
        if !offer.isFolder {
            guard entry.kind == .file, entriesSeen == 1, entry.path == offer.name else { return stop("the sender sent an entry it did not offer") }
        }
        do {
            if entry.kind == .folder {
                try sink.makeFolder(path, mode: entry.mode)
                return
            }
            if !offer.isStream {
                let (sum, overflow) = offeredBytesClaimed.addingReportingOverflow(entry.size)
                guard !overflow, sum <= offer.totalSize else { return stop("the sender sent more bytes than it offered") }
                offeredBytesClaimed = sum
            } else if entry.size != TransferMessage.unknownSize {
                return stop("the sender sent an entry it did not offer")
            }
            existing = try sink.openFile(path, size: entry.size)
            current = (entry, path)
            if readsAhead && existing > 0 { return startProof() }
            prefixHasher = try proveExisting()
        } catch {
            return stop(error)
        }
        offerResume()
    }

    func handleStart(_ offset: UInt64) {
        guard let current else { return }
        guard offset == 0 || offset == existing else { return stop("protocol violation: a start offset that was not proposed") }
        do {
            if offset == 0 {
                hasher = SHA256()
                try sink.truncate(to: 0)
            } else {
                hasher = prefixHasher ?? SHA256()
                try sink.truncate(to: offset)
                bytesResumed += offset
            }
        } catch {
            return stop(error)
        }
        prefixHasher = nil
        received = offset
        state = .receiving
        events.append(.fileStarted(path: current.path.description, size: current.entry.size, resumedFrom: offset))
    }

    func handleData(_ chunk: ArraySlice<UInt8>) {
        guard let current else { return }
        let (sum, overflow) = received.addingReportingOverflow(UInt64(chunk.count))
        guard !overflow, sum <= current.entry.size else { return stop("the sender sent more bytes than it offered for \(current.path)") }
        do {
            try sink.write(chunk, hashingInto: hasher)
        } catch {
            return stop(error)
        }
        received = sum
        bytesReceived += UInt64(chunk.count)
    }

    func handleEnd(_ sha256: [UInt8]) {
        guard let current else { return }
        let known = current.entry.size != TransferMessage.unknownSize
        guard !known || received == current.entry.size else { return stop("the sender ended \(current.path) before its offered size") }
        announcedDigest = sha256
        state = .flushing
        pollFlush()
    }

    /// The file's writes are done (at once without a writing thread): its hash is checked and what was held is taken.
    func pollFlush() {
        guard state == .flushing else { return }
        do {
            if readsAhead {
                guard try sink.flushed(orWake: wake) else {
                    isWaitingForDisk = true
                    return
                }
            } else {
                try sink.flush()   // no thread to wake the caller: waits, as a plain sink's write would have
            }
        } catch {
            return stop(error)
        }
        if let sha256 = announcedDigest {
            announcedDigest = nil
            endFile(sha256)
        } else {
            state = .awaitingEntry
        }
        guard !isFinished && state != .flushing, let entry = held.popFirst() else { return }
        // The entry that waited for the disk is taken as it is; what follows is handled (and may wait) again.
        if case .entry(let e)? = TransferMessage.decode(entry) {
            handleEntry(e)
        } else {
            handle(message: entry)
        }
        while !isFinished && state != .flushing, let next = held.popFirst() { handle(message: next) }
    }

    /// What follows END is held until the file's writes are done; the protocol allows only the
    /// remaining entries and DONE there (entries beyond the offer are refused when they are taken).
    func hold(_ bytes: [UInt8]) {
        let offered = offer.map { UInt64($0.fileCount) + UInt64($0.folderCount) } ?? 0
        guard UInt64(held.count) <= offered - min(offered, entriesSeen) else {
            return stop("protocol violation: more messages after a file's end than entries left")
        }
        held.append(bytes)
    }

    func endFile(_ sha256: [UInt8]) {
        guard let current else { return }
        let ok = hasher.digest() == sha256
        do {
            try sink.closeFile(mode: current.entry.mode, verified: ok)
        } catch {
            return stop(error)
        }
        if !ok { mismatches += 1 }
        self.current = nil
        outbox.append(TransferMessage.result(ok: ok).encode())
        events.append(.fileDone(path: current.path.description, ok: ok))
        state = .awaitingEntry
    }

    func finishAll() {
        do {
            let location = try sink.finish()
            outbox.append(TransferMessage.complete.encode())
            state = .finished
            events.append(.finished(location: location, mismatches: mismatches))
        } catch {
            stop(error)
        }
    }

    func stop(_ reason: String) { stop(TransferError(reason)) }

    /// Tells the sender the cause in words that name nothing of this
    /// machine (`peerMessage`); the local user reads `message`.
    func stop(_ error: TransferError) {
        guard !isFinished else { return }
        outbox.append(TransferMessage.abort(error.peerMessage).encode())
        endProof()
        if state != .awaitingOffer && state != .awaitingUser { abandonSink() }
        fail(error.message)
    }

    /// A sink that writes behind finishes what is queued after `abandon` on
    /// its own thread; a receiver that cannot be woken lets it finish first,
    /// as it has no way to wait for it before the next file opens.
    func abandonSink() {
        if !readsAhead { try? sink.flush() }
        sink.abandon()
    }

    func fail(_ reason: String) {
        state = .failed
        events.append(.failed(reason))
    }
}

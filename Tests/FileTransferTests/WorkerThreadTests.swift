import Dispatch
import Testing
@testable import FileTransfer
import TestSupport

/// The sender's read-ahead thread and the receiver's write-behind thread
/// change where the work happens, never what arrives: the same transfers as
/// `TransferTests`, with both threads on.
@Suite struct WorkerThreadTests {
    @Test(arguments: [0, 1, 999, 1000, 1001, 65_537, 300_000])
    func fileRoundTripsWithItsHash(size: Int) {
        let bytes = pattern(size)
        let sink = MemorySink()
        var pair = TransferPair(source: MemorySource(file: "a.bin", bytes: bytes), sink: WriteBehindSink(sink), readAhead: true)
        pair.run()
        #expect(sink.finished["a.bin"] == bytes)
        #expect(pair.senderEvents == [.accepted, .fileDone(path: "a.bin", ok: true), .finished(mismatches: 0)])
        #expect(pair.receiverEvents.last == .finished(location: "a.bin", mismatches: 0))
        #expect(pair.sender.bytesSent == UInt64(size))
    }

    @Test func aQueueOfOneByteStillDeliversEverythingInOrder() {
        let sink = MemorySink()
        let tree: [(String, [UInt8]?)] = [("sub", nil), ("sub/x", pattern(5000, seed: 1)), ("y", pattern(7000, seed: 2)), ("z", [])]
        var pair = TransferPair(source: MemorySource(name: "t", folder: tree), sink: WriteBehindSink(sink, limit: 1), readAhead: true)
        pair.run()
        #expect(sink.finished["sub/x"] == pattern(5000, seed: 1))
        #expect(sink.finished["y"] == pattern(7000, seed: 2))
        #expect(sink.finished["z"] == [])
        #expect(pair.senderEvents.last == .finished(mismatches: 0))
    }

    @Test func corruptedChunkIsStillAMismatch() {
        let sink = MemorySink()
        var pair = TransferPair(source: MemorySource(file: "a", bytes: pattern(5000)), sink: WriteBehindSink(sink), readAhead: true)
        var seen = 0
        pair.corrupt = { m in
            if m.first == 7 { seen += 1; if seen == 3 { m[10] ^= 0xFF } }
        }
        pair.run()
        #expect(sink.finished["a"] == nil)
        #expect(pair.senderEvents.last == .finished(mismatches: 1))
    }

    @Test func resumeAfterThreeInterruptionsSendsEachByteOnce() {
        let bytes = pattern(50_000)
        let sink = MemorySink()
        var resent: UInt64 = 0
        for limit in [7, 19, 31, Int.max] {
            // One source for every run, as a sender that reconnects keeps it:
            // the old sender's thread must have stopped reading before the next one starts.
            var pair = TransferPair(source: MemorySource(file: "big", bytes: bytes), sink: WriteBehindSink(sink), readAhead: true)
            pair.run(limit: limit)
            resent += pair.sender.bytesSent
            if limit != .max { pair.receiver.channelClosed() }
        }
        #expect(sink.finished["big"] == bytes)
        #expect(resent == UInt64(bytes.count))
    }

    @Test func aFullDiskIsReportedAndWhatFollowsIsNotWritten() {
        let sink = MemorySink()
        sink.writeBudget = 2500
        var pair = TransferPair(source: MemorySource(file: "a", bytes: pattern(10_000)), sink: WriteBehindSink(sink), readAhead: true)
        pair.run()
        FullWriteQueueTests.waitForRetiredSinks()
        #expect(sink.partial["a"]?.count == 2000)
        #expect(sink.abandoned)
        #expect(pair.senderEvents.last == .failed("the receiver stopped the transfer: the disk is full writing a"))
    }

    @Test func aReadErrorStopsTheTransferWithItsSentence() {
        let source = MemorySource(file: "a", bytes: pattern(10_000))
        source.failAfterReads = 3
        let sink = MemorySink()
        var pair = TransferPair(source: source, sink: WriteBehindSink(sink), readAhead: true)
        pair.run()
        #expect(pair.senderEvents.last == .failed("cannot read a: input/output error"))
        #expect(pair.receiverEvents.last == .failed("the sender stopped the transfer: cannot read a: input/output error"))
        #expect(sink.finished["a"] == nil)
    }

    @Test func aFileThatGotShorterIsRefused() {
        let source = MemorySource(file: "a", bytes: pattern(10_000))
        source.contents[0] = pattern(4_000)   // the offer still says 10,000
        var pair = TransferPair(source: source, sink: WriteBehindSink(MemorySink()), readAhead: true)
        pair.run()
        #expect(pair.senderEvents.last == .failed("a got shorter while it was being sent"))
    }

    @Test func readAheadStaysWithinItsLimitAndStopsOnClose() {
        let source = MemorySource(file: "a", bytes: pattern(100_000))
        let hasher = SHA256()
        let woken = DispatchSemaphore(value: 0)
        let ahead = ReadAhead(source: source, entry: 0, offset: 0, size: 100_000, chunkSize: 1000, hasher: hasher, limit: 3000,
                              wake: { woken.signal() })
        for _ in 0..<2 {
            var output = ahead.poll()
            while output == nil {
                woken.wait()
                output = ahead.poll()
            }
            guard case .chunk(let message, 1000)? = output else { Issue.record("no chunk"); return }
            #expect(message.count == 1001 && message[0] == TransferMessage.Tag.data.rawValue)
        }
        ahead.close()
        // Two taken and at most three (3,003 bytes) waiting: never the whole file.
        #expect(source.reads >= 2 && source.reads <= 5)
    }
}

/// A disk that answers late: each read waits until the test lets one through.
final class GatedSource: TransferSource {
    let inner: MemorySource
    let gate = DispatchSemaphore(value: 0)
    init(_ inner: MemorySource) { self.inner = inner }
    var offer: TransferOffer { inner.offer }
    var entries: [TransferEntry] { inner.entries }
    var canSeek: Bool { true }
    func read(entry index: Int, offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws(TransferError) -> Int {
        gate.wait()
        return try inner.read(entry: index, offset: offset, into: buffer)
    }
}

/// A `.part` whose reads wait until the test lets one through, and
/// with `gatesWrites` its writes too. With `giveUpAfter`, a write the test
/// never lets through goes ahead after that long, and every later one at
/// once (`gaveUp`), so a caller
/// that waits for its own disk fails the test instead of hanging it.
final class GatedSink: TransferSink {
    let inner: MemorySink
    let gate = DispatchSemaphore(value: 0)
    let gatesWrites: Bool
    let giveUpAfter: Duration?
    var gaveUp = false
    init(_ inner: MemorySink, gatesWrites: Bool = false, giveUpAfter: Duration? = nil) {
        self.inner = inner
        self.gatesWrites = gatesWrites
        self.giveUpAfter = giveUpAfter
    }
    func pass() {
        guard let giveUpAfter else { return gate.wait() }
        if gaveUp { return }   // the disk answers from now on
        if gate.wait(timeout: .now() + .seconds(Int(giveUpAfter.components.seconds))) == .timedOut { gaveUp = true }
    }
    func begin(_ offer: TransferOffer, name: SafePath) throws(TransferError) { try inner.begin(offer, name: name) }
    func makeFolder(_ path: SafePath, mode: UInt16) throws(TransferError) { try inner.makeFolder(path, mode: mode) }
    func openFile(_ path: SafePath, size: UInt64) throws(TransferError) -> UInt64 { try inner.openFile(path, size: size) }
    func readExisting(offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws(TransferError) -> Int {
        gate.wait()
        return try inner.readExisting(offset: offset, into: buffer)
    }
    func truncate(to length: UInt64) throws(TransferError) { try inner.truncate(to: length) }
    func write(_ bytes: ArraySlice<UInt8>) throws(TransferError) {
        if gatesWrites { pass() }
        try inner.write(bytes)
    }
    func closeFile(mode: UInt16, verified: Bool) throws(TransferError) { try inner.closeFile(mode: mode, verified: verified) }
    func finish() throws(TransferError) -> String { try inner.finish() }
    func abandon() { inner.abandon() }
}

@Suite struct SlowDiskTests {
    /// The sender's loop never waits for its disk: with every read held
    /// back, `pollMessage` answers at once that nothing is ready, and the
    /// data follows the reading thread's wake once the disk answers.
    @Test(.timeLimit(.minutes(1)))
    func aSlowDiskNeverHoldsTheSendersLoop() {
        let bytes = pattern(5000)
        let source = GatedSource(MemorySource(file: "a", bytes: bytes))
        let sink = MemorySink()
        var pair = TransferPair(source: source, sink: sink, readAhead: true)
        pair.sender.start()
        // Offer, accept, entry, resume, start: none of it needs the disk.
        var rounds = 0
        while !pair.sender.isWaitingForDisk && rounds < 20 {
            rounds += 1
            while let m = pair.sender.pollMessage() { pair.receiver.handle(message: m) }
            while let e = pair.receiver.pollEvent() { if case .offer = e { pair.receiver.accept() } }
            while let m = pair.receiver.pollMessage() { pair.sender.handle(message: m) }
        }
        #expect(pair.sender.isWaitingForDisk)
        #expect(pair.sender.pollMessage() == nil && pair.sender.isWaitingForDisk)
        for _ in 0..<10 { source.gate.signal() }   // five reads of 1,000 bytes and the end, with room to spare
        pair.run()
        #expect(sink.finished["a"] == bytes)
        #expect(pair.senderEvents.last == .finished(mismatches: 0))
    }

    /// Moves messages until `done` (at most 20 rounds); the receiver
    /// accepts, and its `.part` is hashed on its thread (`woken` says when).
    static func exchange(_ pair: TransferPair, until done: () -> Bool) {
        let sender = pair.sender, receiver = pair.receiver
        var rounds = 0
        while !done() && rounds < 20 {
            rounds += 1
            while let m = sender.pollMessage() { receiver.handle(message: m) }
            while let e = receiver.pollEvent() { if case .offer = e { receiver.accept() } }
            while let m = receiver.pollMessage() { sender.handle(message: m) }
            if !done() && receiver.isWaitingForDisk { pair.woken.wait() }
        }
    }

    /// A resume proves the shared prefix by hashing it on both sides. The
    /// sender hashes its own first bytes on the reading thread: with its
    /// disk held back it answers at once that it waits, and sends only the
    /// rest once the disk answered. Before: it read the whole prefix on
    /// the loop (a gigabyte for a gigabyte resumed).
    @Test(.timeLimit(.minutes(1)))
    func theSenderHashesAResumedPrefixWithoutHoldingItsLoop() {
        let bytes = pattern(5000)
        let source = GatedSource(MemorySource(file: "a", bytes: bytes))
        let sink = MemorySink()
        sink.partial["a"] = Array(bytes.prefix(3000))
        var pair = TransferPair(source: source, sink: sink, readAhead: true)
        pair.sender.start()
        let sender = pair.sender
        Self.exchange(pair) { sender.isWaitingForDisk }
        #expect(pair.sender.isWaitingForDisk, "the sender waits for the prefix's hash")
        #expect(pair.sender.pollMessage() == nil && pair.sender.isWaitingForDisk)
        for _ in 0..<10 { source.gate.signal() }   // three reads of the prefix, two of the rest and the end
        pair.run()
        #expect(sink.finished["a"] == bytes)
        #expect(pair.sender.bytesSkipped == 3000 && pair.sender.bytesSent == 2000)
    }

    /// The receiver hashes its `.part` on a thread too: with the `.part`'s
    /// reads held back it has nothing to say yet (no resume), and offers the
    /// resume once they come through. Before: it read the whole `.part` on the loop.
    @Test(.timeLimit(.minutes(1)))
    func theReceiverHashesItsPartFileWithoutHoldingItsLoop() {
        let bytes = pattern(5000)
        let inner = MemorySink()
        inner.partial["a"] = Array(bytes.prefix(3000))
        let sink = GatedSink(inner)
        var pair = TransferPair(source: MemorySource(file: "a", bytes: bytes), sink: sink, readAhead: true)
        pair.sender.start()
        let receiver = pair.receiver
        Self.exchange(pair) { receiver.isWaitingForDisk }
        #expect(pair.receiver.isWaitingForDisk, "the receiver waits for its .part's hash")
        #expect(pair.receiver.pollMessage() == nil && pair.receiver.isWaitingForDisk)
        for _ in 0..<4 { sink.gate.signal() }   // 3,000 bytes in one read, then the end
        pair.run()
        #expect(inner.finished["a"] == bytes)
        #expect(pair.sender.bytesSkipped == 3000 && pair.receiver.bytesResumed == 3000)
    }

    /// A file's END does not wait for the write-behind queue to be written:
    /// with the disk's writes held back the receiver answers at once that it
    /// waits (no RESULT yet, and the next file's ENTRY is held), and checks
    /// the hash once the writing thread woke it. Before: `flush` waited on
    /// the loop for up to 4 MiB of writes.
    @Test(.timeLimit(.minutes(1)))
    func theReceiverEndsAFileWithoutWaitingForItsWrites() {
        let tree: [(String, [UInt8]?)] = [("x", pattern(3000, seed: 1)), ("y", pattern(2000, seed: 2))]
        let inner = MemorySink()
        let sink = GatedSink(inner, gatesWrites: true)
        var pair = TransferPair(source: MemorySource(name: "t", folder: tree), sink: WriteBehindSink(sink), readAhead: true)
        pair.sender.start()
        let sender = pair.sender, receiver = pair.receiver
        var rounds = 0
        while !receiver.isWaitingForDisk && rounds < 100 {
            rounds += 1
            while let m = sender.pollMessage() { receiver.handle(message: m) }
            while let e = receiver.pollEvent() { if case .offer = e { receiver.accept() } }
            while let m = receiver.pollMessage() { sender.handle(message: m) }
            if sender.isWaitingForDisk && !receiver.isWaitingForDisk { pair.woken.wait() }   // the sender's reads are its own
        }
        #expect(receiver.isWaitingForDisk, "the receiver waits for x's writes")
        #expect(receiver.pollMessage() == nil && receiver.isWaitingForDisk, "no RESULT before the writes are done")
        #expect(!receiver.held.isEmpty, "y's ENTRY waits for x's result")
        #expect(inner.finished["x"] == nil)
        for _ in 0..<5 { sink.gate.signal() }   // three writes of x, two of y
        pair.run()
        #expect(inner.finished["x"] == pattern(3000, seed: 1) && inner.finished["y"] == pattern(2000, seed: 2))
        #expect(pair.senderEvents.last == .finished(mismatches: 0))
    }
}

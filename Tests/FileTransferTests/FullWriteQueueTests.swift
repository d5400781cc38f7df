import Dispatch
import Testing
@testable import FileTransfer
import TestSupport

/// The receiver's loop never waits for its write-behind queue: with the
/// disk's writes held back, DATA beyond the queue's limit is left
/// unconsumed at once (`handle` answers false, and the driver stops reading,
/// so SCTP's window stops the sender), and it is taken after the writing
/// thread's wake. Before, the write waited on the loop for the disk: the
/// held writes go ahead after 30 s (`gaveUp`), and the tests fail.
@Suite struct FullWriteQueueTests {
    /// Moves messages until the receiver leaves a DATA message unconsumed; that message.
    static func exchangeUntilRefused(_ pair: TransferPair) -> [UInt8]? {
        let sender = pair.sender, receiver = pair.receiver
        sender.start()
        for _ in 0..<100 {
            while let m = sender.pollMessage() {
                if !receiver.handle(message: m) { return m }
            }
            while let e = receiver.pollEvent() { if case .offer = e { receiver.accept() } }
            while let m = receiver.pollMessage() { sender.handle(message: m) }
            if sender.isWaitingForDisk || receiver.isWaitingForDisk { pair.woken.wait() }
        }
        return nil
    }

    /// Offers `message` again after each wake until the receiver takes it.
    static func offerAgain(_ message: [UInt8], to pair: TransferPair) {
        while !pair.receiver.handle(message: message) { pair.woken.wait() }
    }

    /// Waits until every abandoned write-behind sink has finished on its thread.
    static func waitForRetiredSinks() {
        let done = DispatchSemaphore(value: 0)
        if !Retiring.isIdle(orWake: { done.signal() }) { done.wait() }
    }

    @Test(.timeLimit(.minutes(1)))
    func aFullQueueLeavesDataUnconsumedAndTakesItAfterTheWake() {
        let bytes = pattern(10_000)
        let inner = MemorySink()
        let sink = GatedSink(inner, gatesWrites: true, giveUpAfter: .seconds(30))
        var pair = TransferPair(source: MemorySource(file: "a", bytes: bytes), sink: WriteBehindSink(sink, limit: 2000), readAhead: true)
        guard let refused = Self.exchangeUntilRefused(pair) else {
            Issue.record("the receiver took every chunk with nothing written")
            return
        }
        #expect(!sink.gaveUp, "the loop waited for the disk")
        #expect(refused.first == TransferMessage.Tag.data.rawValue)
        #expect(pair.receiver.isWaitingForRoom)
        #expect(pair.receiver.bytesReceived == 2000, "two chunks queued, the third left unconsumed")
        #expect(inner.partial["a", default: []].isEmpty, "nothing written yet")
        for _ in 0..<20 { sink.gate.signal() }   // ten writes, with room to spare
        Self.offerAgain(refused, to: pair)
        #expect(!pair.receiver.isWaitingForRoom)
        pair.run()
        #expect(inner.finished["a"] == bytes)
        #expect(pair.senderEvents.last == .finished(mismatches: 0))
    }

    /// A write that fails behind a full queue is still reported, and nothing after it is written.
    @Test(.timeLimit(.minutes(1)))
    func aWriteThatFailsBehindAFullQueueIsReported() {
        let inner = MemorySink()
        inner.writeBudget = 2500
        let sink = GatedSink(inner, gatesWrites: true, giveUpAfter: .seconds(30))
        var pair = TransferPair(source: MemorySource(file: "a", bytes: pattern(10_000)), sink: WriteBehindSink(sink, limit: 2000), readAhead: true)
        guard let refused = Self.exchangeUntilRefused(pair) else {
            Issue.record("the receiver took every chunk with nothing written")
            return
        }
        #expect(!sink.gaveUp, "the loop waited for the disk")
        for _ in 0..<20 { sink.gate.signal() }
        Self.offerAgain(refused, to: pair)
        pair.run()
        Self.waitForRetiredSinks()
        #expect(inner.partial["a"]?.count == 2000)
        #expect(inner.abandoned)
        #expect(pair.senderEvents.last == .failed("the receiver stopped the transfer: the disk is full writing a"))
    }

    /// A resumed `.part` is hashed on the thread, then the rest fills the
    /// queue of a disk that answers late: the loop is never held, the
    /// transfer is byte-exact, and only the rest crosses.
    @Test(.timeLimit(.minutes(1)))
    func aResumeThroughAFullQueueIsByteExact() {
        let bytes = pattern(20_000)
        let inner = MemorySink()
        inner.partial["a"] = Array(bytes.prefix(7000))
        let sink = GatedSink(inner, gatesWrites: true, giveUpAfter: .seconds(30))
        var pair = TransferPair(source: MemorySource(file: "a", bytes: bytes), sink: WriteBehindSink(sink, limit: 2000), readAhead: true)
        sink.gate.signal()   // the .part's 7,000 bytes in one read; the writes wait
        guard let refused = Self.exchangeUntilRefused(pair) else {
            Issue.record("the receiver took every chunk with nothing written")
            return
        }
        #expect(!sink.gaveUp, "the loop waited for the disk")
        #expect(pair.receiver.bytesResumed == 7000 && pair.receiver.bytesReceived == 2000)
        for _ in 0..<40 { sink.gate.signal() }
        Self.offerAgain(refused, to: pair)
        pair.run()
        #expect(inner.finished["a"] == bytes)
        #expect(pair.sender.bytesSkipped == 7000 && pair.sender.bytesSent == 13_000)
        #expect(pair.senderEvents.last == .finished(mismatches: 0))
    }
}

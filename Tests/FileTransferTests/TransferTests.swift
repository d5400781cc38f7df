import Testing
@testable import FileTransfer
import TestSupport

@Suite struct TransferTests {
    @Test(arguments: [0, 1, 999, 1000, 1001, 65_535, 65_536, 65_537])
    func fileRoundTripsWithItsHash(size: Int) {
        let bytes = pattern(size)
        let sink = MemorySink()
        var pair = TransferPair(source: MemorySource(file: "a.bin", bytes: bytes), sink: sink)
        pair.run()
        #expect(sink.finished["a.bin"] == bytes)
        #expect(sink.modes["a.bin"] == 0o644)
        #expect(pair.senderEvents == [.accepted, .fileDone(path: "a.bin", ok: true), .finished(mismatches: 0)])
        #expect(pair.receiverEvents.last == .finished(location: "a.bin", mismatches: 0))
        #expect(pair.sender.bytesSent == UInt64(size))
    }

    @Test func fullSizeChunksAre64KiBMessages() {
        let sink = MemorySink()
        var pair = TransferPair(source: MemorySource(file: "a", bytes: pattern(200_000)), sink: sink, chunkSize: .max)
        var largest = 0
        pair.corrupt = { largest = max(largest, $0.count) }
        pair.run()
        #expect(largest == 65_536)
        #expect(sink.finished["a"]?.count == 200_000)
    }

    @Test func folderKeepsEmptyFoldersPathsAndModes() {
        let tree: [(String, [UInt8]?)] = [("empty", nil), ("sub", nil), ("sub/ünï cödé.txt", pattern(3000)), ("top", pattern(10))]
        let sink = MemorySink()
        var pair = TransferPair(source: MemorySource(name: "tree", folder: tree), sink: sink)
        pair.run()
        #expect(sink.folders == ["empty": 0o750, "sub": 0o750])
        #expect(sink.finished["sub/ünï cödé.txt"] == pattern(3000))
        #expect(sink.finished["top"] == pattern(10))
        #expect(sink.modes["top"] == 0o640)
        #expect(pair.senderEvents.last == .finished(mismatches: 0))
    }

    @Test func declineEndsBothSides() {
        let sink = MemorySink()
        var pair = TransferPair(source: MemorySource(file: "a", bytes: [1, 2, 3]), sink: sink)
        pair.run(accept: false)
        #expect(pair.senderEvents == [.declined("no thanks")])
        #expect(sink.begun == nil)
        #expect(pair.sender.isFinished && pair.receiver.isFinished)
    }

    @Test func corruptedChunkIsAMismatchOnBothSides() {
        let sink = MemorySink()
        var pair = TransferPair(source: MemorySource(file: "a", bytes: pattern(5000)), sink: sink)
        var seen = 0
        pair.corrupt = { m in
            if m.first == 7 { seen += 1; if seen == 3 { m[10] ^= 0xFF } }
        }
        pair.run()
        #expect(sink.finished["a"] == nil)
        #expect(pair.senderEvents.contains(.fileDone(path: "a", ok: false)))
        #expect(pair.senderEvents.last == .finished(mismatches: 1))
        #expect(pair.receiverEvents.contains(.fileDone(path: "a", ok: false)))
    }

    @Test func resumeSendsOnlyTheRestThreeTimes() {
        let bytes = pattern(50_000)
        let sink = MemorySink()
        var resent: UInt64 = 0
        // Three interruptions at different points, then a run to the end.
        for limit in [7, 19, 31, Int.max] {
            let source = MemorySource(file: "big", bytes: bytes)
            var pair = TransferPair(source: source, sink: sink)
            pair.run(limit: limit)
            resent += pair.sender.bytesSent
            if limit != .max {
                pair.receiver.channelClosed()
                #expect(sink.finished["big"] == nil)
            } else {
                #expect(pair.sender.bytesSkipped > 0)
            }
        }
        #expect(sink.finished["big"] == bytes)
        // Nothing is sent twice: the bytes sent over all runs add up to the file.
        #expect(resent == UInt64(bytes.count))
    }

    @Test func aPrefixThatDiffersIsSentAgainFromTheStart() {
        let sink = MemorySink()
        sink.partial["a"] = [9, 9, 9, 9]
        let bytes = pattern(3000)
        var pair = TransferPair(source: MemorySource(file: "a", bytes: bytes), sink: sink)
        pair.run()
        #expect(sink.finished["a"] == bytes)
        #expect(pair.sender.bytesSkipped == 0)
        #expect(pair.sender.bytesSent == 3000)
    }

    @Test func aStreamThatCannotSeekStartsAtZero() {
        let sink = MemorySink()
        sink.partial["s"] = Array(pattern(100).prefix(50))
        let source = MemorySource(file: "s", bytes: pattern(100))
        source.canSeek = false
        var pair = TransferPair(source: source, sink: sink)
        pair.run()
        #expect(sink.finished["s"] == pattern(100))
        #expect(pair.sender.bytesSkipped == 0)
    }

    @Test func fullDiskStopsBothSidesAndKeepsThePartial() {
        let sink = MemorySink()
        sink.writeBudget = 2500
        var pair = TransferPair(source: MemorySource(file: "a", bytes: pattern(10_000)), sink: sink)
        pair.run()
        #expect(sink.partial["a"]?.count == 2000)
        #expect(sink.abandoned)
        #expect(pair.senderEvents.last == .failed("the receiver stopped the transfer: the disk is full writing a"))
    }
}

@Suite struct ProgressMeterTests {
    @Test func rateAndTimeLeftFromAManualClock() {
        var meter = ProgressMeter(total: 10_000_000)
        meter.record(0, now: .seconds(10))
        meter.record(2_000_000, now: .seconds(11))
        #expect(meter.rate == 2_000_000)
        #expect(meter.eta == .seconds(4))
        #expect(meter.summary == "2.0 MB of 10.0 MB · 2.0 MB/s · 0:04 left")
        #expect(ProgressMeter.bytes(999) == "999 B")
        #expect(ProgressMeter.clock(.seconds(3723)) == "1:02:03")
    }

    @Test func aResumedPrefixCountsAsDoneButNotAsSpeed() {
        // 930 MB were already there; 10 MB/s cross the wire afterwards.
        var meter = ProgressMeter(total: 1_000_000_000)
        meter.record(0, now: .seconds(1))
        meter.record(930_000_000, now: .seconds(2), resumed: 930_000_000)
        meter.record(940_000_000, now: .seconds(3), resumed: 930_000_000)
        #expect(meter.done == 940_000_000 && meter.fraction == 0.94)
        // 10 MB crossed in the 2 s since the first sample (was 470 MB/s, "0:00 left").
        #expect(meter.rate == 5_000_000)
        #expect(meter.eta == .seconds(12))
    }

    @Test func aStreamHasNoTimeLeft() {
        var meter = ProgressMeter(total: TransferMessage.unknownSize)
        meter.record(0, now: .zero)
        meter.record(500, now: .seconds(1))
        #expect(meter.eta == nil && meter.fraction == nil)
        #expect(meter.summary == "500 B · 500 B/s")
    }
}

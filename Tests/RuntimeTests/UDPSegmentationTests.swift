import Glibc
import Testing
import TestSupport
@testable import Runtime

/// UDP segmentation offload: how a batch is cut into runs (pure), and on
/// loopback that runs leave as segmented sends, come back coalesced, are
/// cut into the same datagrams in the same order, and that a kernel
/// refusing segmentation (EIO, EINVAL) costs nothing but the offload.
@Suite struct UDPSegmentationTests {
    @Test func runsAreSameSizeDatagramsToOneAddressEndedByAShorterOne() {
        let lengths = [1200, 1200, 1200, 800, 1200, 1200, 500, 700, 0, 9]
        let runs = Batch.runs(lengths, from: 0) { _, _ in true }
        #expect(runs == [.init(first: 0, count: 4, size: 1200), .init(first: 4, count: 3, size: 1200),
                         .init(first: 7, count: 1, size: 700), .init(first: 8, count: 1, size: 0), .init(first: 9, count: 1, size: 9)])
        #expect(Batch.runs(lengths, from: 5) { _, _ in true }.first == .init(first: 5, count: 2, size: 1200))
    }

    @Test func anotherAddressStartsARun() {
        let destinations = [1, 1, 2, 2, 1]
        let runs = Batch.runs([100, 100, 100, 100, 100], from: 0) { destinations[$0] == destinations[$1] }
        #expect(runs.map(\.count) == [2, 2, 1])
    }

    @Test func runsStayWithinTheKernelsLimits() {
        let small = Batch.runs([Int](repeating: 10, count: 200), from: 0) { _, _ in true }
        #expect(small.map(\.count) == [64, 64, 64, 8])
        let large = Batch.runs([Int](repeating: 16_384, count: 10), from: 0) { _, _ in true }
        #expect(large.map(\.count) == [3, 3, 3, 1])   // 4 × 16 KiB would pass 65,000 bytes
        #expect(large.allSatisfy { $0.count * $0.size <= Batch.maxSegmentedBytes })
    }

    /// 1200-byte datagrams as SCTP sends them at an internet path's size,
    /// and a shorter one that ends the first run.
    private func datagrams() -> [[UInt8]] {
        (0..<40).map { Fixture.bytes(count: $0 == 29 ? 333 : 1200, seed: UInt64($0 + 1)) }
    }

    @Test func segmentedOnLoopbackAndCutBackIntoTheSameDatagrams() throws {
        let (loop, sender, receiver) = try UDPSocket.loopbackPair()
        defer {
            sender.close()
            receiver.close()
        }
        let sent = datagrams()
        sender.beginBatch()
        for datagram in sent { sender.send(datagram, to: receiver.localAddress) }
        sender.endBatch()
        #expect(UDPSocket.collect(sent.count, on: receiver, loop: loop) == sent)
        #expect(sender.segmentsSends)
        #expect(sender.segmentedSends == 40)   // runs 0...29 and 30...39
        #expect(receiver.segmentsReceives)
        #expect(receiver.segmentedReceives > 0)
        #expect(sender.droppedSends == 0)
    }

    @Test(arguments: [EIO, EINVAL])
    func aRefusedSegmentedSendGoesDatagramByDatagram(code: Int32) throws {
        let (loop, sender, receiver) = try UDPSocket.loopbackPair()
        defer {
            sender.close()
            receiver.close()
        }
        sender.refuseSegmentedSends = code
        let sent = datagrams()
        sender.beginBatch()
        for datagram in sent { sender.send(datagram, to: receiver.localAddress) }
        sender.endBatch()
        #expect(UDPSocket.collect(sent.count, on: receiver, loop: loop) == sent)
        #expect(!sender.segmentsSends)
        #expect(sender.segmentedSends == 0)
        #expect(sender.droppedSends == 0)
        // And later batches too, without asking the kernel again.
        sender.beginBatch()
        for datagram in sent { sender.send(datagram, to: receiver.localAddress) }
        sender.endBatch()
        #expect(UDPSocket.collect(sent.count, on: receiver, loop: loop) == sent)
        #expect(sender.segmentedSends == 0)
    }

    /// One readiness event hands over at most `receiveBudget` datagrams,
    /// counting each one cut from a coalesced receive (plus what the last
    /// receive held): a busy socket (a file) yields the loop to the others
    /// (a chat line on another pair's socket) every turn.
    @Test func aTurnTakesABoundedNumberOfDatagramsAlsoWhenTheyCameCoalesced() throws {
        let (loop, sender, receiver) = try UDPSocket.loopbackPair()
        defer {
            sender.close()
            receiver.close()
        }
        let sent = (0..<600).map { Fixture.bytes(count: 1200, seed: UInt64($0 + 1)) }
        sender.beginBatch()
        for datagram in sent { sender.send(datagram, to: receiver.localAddress) }
        sender.endBatch()
        var perTurn: [Int] = [], thisTurn = 0
        receiver.onDatagramsRead = {
            perTurn.append(thisTurn)
            thisTurn = 0
        }
        var received: [[UInt8]] = []
        receiver.onDatagram = { bytes, _ in
            received.append(bytes)
            thisTurn += 1
            if received.count == sent.count { loop.stop() }
        }
        #expect(loop.run(timeout: .seconds(10)))
        let largest = Batch.maxSegmentedBytes / 1200
        #expect(received == sent)
        #expect(receiver.segmentedReceives > 0, "the kernel coalesced nothing: the bound is not what this checks")
        #expect(perTurn.allSatisfy { $0 <= UDPSocket.receiveBudget + largest }, "\(perTurn)")
        #expect(perTurn.count >= sent.count / (UDPSocket.receiveBudget + largest))
    }
}

import Testing
import TestSupport
@testable import Runtime

/// `sendmmsg` batches (``UDPSocket/beginBatch()``) and `recvmmsg` reads:
/// order, more datagrams than one batch or one read holds, refusals counted.
/// Few and small datagrams, so a default 208 KiB receive buffer holds them all.
@Suite struct UDPBatchTests {
    @Test func batchLargerThanOneSendmmsgArrivesInOrder() throws {
        let (loop, sender, receiver) = try UDPSocket.loopbackPair()
        defer {
            sender.close()
            receiver.close()
        }
        // 100 > 64 per sendmmsg, and > 16 per recvmmsg: all sent before the loop reads any.
        let datagrams = (0..<100).map { Fixture.bytes(count: 1 + $0 * 7, seed: UInt64($0 + 1)) }
        sender.beginBatch()
        for datagram in datagrams { sender.send(datagram, to: receiver.localAddress) }
        sender.endBatch()
        #expect(UDPSocket.collect(datagrams.count, on: receiver, loop: loop) == datagrams)
        #expect(sender.droppedSends == 0)
    }

    @Test func nestedBatchesSendInOrderWithUnbatchedSends() throws {
        let (loop, sender, receiver) = try UDPSocket.loopbackPair()
        defer {
            sender.close()
            receiver.close()
        }
        let datagrams = (0..<6).map { Fixture.bytes(count: 10 + $0, seed: UInt64($0 + 9)) }
        sender.send(datagrams[0], to: receiver.localAddress)
        sender.beginBatch()
        sender.send(datagrams[1], to: receiver.localAddress)
        sender.beginBatch()
        sender.send(datagrams[2], to: receiver.localAddress)
        sender.endBatch()
        sender.send(datagrams[3], to: receiver.localAddress)
        sender.endBatch()
        sender.endBatch()   // unmatched: ignored
        sender.send(datagrams[4], to: receiver.localAddress)
        sender.beginBatch()
        sender.send(datagrams[5], to: receiver.localAddress)
        sender.endBatch()
        #expect(UDPSocket.collect(datagrams.count, on: receiver, loop: loop) == datagrams)
    }

    @Test func refusedDatagramsInABatchAreCountedAndTheRestGo() throws {
        let (loop, sender, receiver) = try UDPSocket.loopbackPair()
        defer {
            sender.close()
            receiver.close()
        }
        let first = Array("before".utf8), last = Array("after".utf8)
        sender.beginBatch()
        sender.send(first, to: receiver.localAddress)
        sender.send(Fixture.bytes(count: 70_000), to: receiver.localAddress)   // over UDP's limit: EMSGSIZE
        sender.send(last, to: try Fixture.address("[::1]:9"))                   // IPv6 from an IPv4 socket
        sender.send(last, to: receiver.localAddress)
        sender.endBatch()
        #expect(UDPSocket.collect(2, on: receiver, loop: loop) == [first, last])
        #expect(sender.droppedSends == 2)
    }

    @Test func oneReadEndsWithOneCallAfterItsDatagrams() throws {
        let (loop, sender, receiver) = try UDPSocket.loopbackPair()
        defer {
            sender.close()
            receiver.close()
        }
        let datagrams = (0..<40).map { Fixture.bytes(count: 100 + $0, seed: UInt64($0 + 3)) }
        // What happened, in order: a datagram's index, or -1 for the end of a read.
        var log: [Int] = []
        receiver.onDatagram = { bytes, _ in log.append(datagrams.firstIndex(of: bytes) ?? -2) }
        receiver.onDatagramsRead = {
            log.append(-1)
            if log.filter({ $0 >= 0 }).count == datagrams.count { loop.stop() }
        }
        sender.beginBatch()
        for datagram in datagrams { sender.send(datagram, to: receiver.localAddress) }
        sender.endBatch()
        #expect(loop.run(timeout: .seconds(10)))
        #expect(log.filter { $0 >= 0 } == Array(0..<40))
        #expect(log.last == -1)
        // Every end of a read follows at least one datagram, and a read holds many.
        #expect(zip(log, log.dropFirst()).allSatisfy { !($0 == -1 && $1 == -1) } && log.first != -1)
        #expect(log.filter { $0 == -1 }.count < datagrams.count)
    }
}

@testable import ChatClient
import FileTransfer
import Testing
import TestSupport

/// File transfers as part of the chat core, in the world: each side's
/// transfers run on its session's connection (the session owns both), over
/// the emulated network, with in-memory files. What a peer leaving, a
/// decline, a cancel or a crash does to a transfer, without sockets.
@Suite struct TransferScenarioTests {
    /// Alice and Bob connected, both with transfers; Bob's arrive in `sink`.
    func pair(_ world: World, autoAccept: Bool = true, sink: MemorySink = MemorySink()) throws -> (alice: Client, bob: Client) {
        let (alice, bob) = try world.pair()
        // No reading threads: the memory "disk" answers at once, on the world's clock.
        let sending = FileTransfers { _ in MemorySink() }
        sending.readsAhead = false
        alice.session.attach(sending)
        let files = FileTransfers { _ in sink }
        files.readsAhead = false
        files.autoAccept = autoAccept
        bob.session.attach(files)
        return (alice, bob)
    }

    @Test func aFileCrossesTheChatAndArrivesVerified() throws {
        let world = try World()
        let sink = MemorySink()
        let (alice, bob) = try pair(world, sink: sink)
        let bytes = pattern(3 << 20)
        alice.files(.send(MemorySource(file: "big.bin", bytes: bytes), skipped: []))
        #expect(world.run(until: { alice.finished.count == 1 && bob.finished.count == 1 }, limit: .seconds(60)),
                "\(alice.transfers.suffix(3)) \(bob.transfers.suffix(3))")
        let arrived = sink.finished["big.bin"] == bytes   // compared here: a failure would print megabytes
        #expect(arrived)
        #expect(alice.finished == [.finished(id: 1, .sending, location: nil, mismatches: 0, transferred: 3 << 20, resumed: 0)])
        #expect(alice.session.transfers?.isIdle == true && bob.session.transfers?.isIdle == true)
    }

    /// Issue 25's fourth bug: the peer leaving mid-transfer left the transfer
    /// in the prompt with no failure line.
    @Test func aTransferUnderWayFailsWithTheReasonWhenThePeerLeaves() throws {
        let world = try World()
        let sink = MemorySink()
        let (alice, bob) = try pair(world, sink: sink)
        alice.files(.send(MemorySource(file: "big.bin", bytes: pattern(8 << 20)), skipped: []))
        #expect(world.run(until: { sink.partial["big.bin", default: []].count > 1 << 20 }, limit: .seconds(60)))
        bob.leaveNow()
        #expect(world.run(until: { alice.failed.count == 1 }, limit: .seconds(30)), "\(alice.transfers.suffix(3))")
        guard case .failed(1, .sending, let reason)? = alice.failed.first else { return }
        #expect(reason.contains("your peer left"))
        #expect(alice.session.transfers?.active.isEmpty == true)
    }

    @Test func aDeclinedOfferEndsTheSendersTransfer() throws {
        let world = try World()
        let (alice, bob) = try pair(world, autoAccept: false)
        alice.files(.send(MemorySource(file: "report.pdf", bytes: pattern(1000)), skipped: []))
        #expect(world.run(until: { bob.session.transfers?.pendingOffers == [1] }, limit: .seconds(10)))
        bob.files(.decline(id: 1, reason: "no thanks"))
        #expect(world.run(until: { alice.transfers.contains(.declined(id: 1, reason: "no thanks")) }, limit: .seconds(10)))
        #expect(alice.session.transfers?.isIdle == true)
    }

    @Test func theSendersCancelStopsTheReceiverAndKeepsWhatArrived() throws {
        let world = try World()
        let sink = MemorySink()
        let (alice, bob) = try pair(world, sink: sink)
        alice.files(.send(MemorySource(file: "big.bin", bytes: pattern(8 << 20)), skipped: []))
        #expect(world.run(until: { sink.partial["big.bin", default: []].count > 1 << 20 }, limit: .seconds(60)))
        alice.files(.cancel(id: 1, reason: "cancelled"))
        #expect(world.run(until: { bob.failed.count == 1 }, limit: .seconds(10)), "\(bob.transfers.suffix(3))")
        guard case .failed(1, .receiving, let reason)? = bob.failed.first else { return }
        #expect(reason.contains("cancelled"))
        #expect(sink.abandoned && sink.partial["big.bin", default: []].count > 1 << 20)
        #expect(alice.failed.count == 1 && alice.session.transfers?.isIdle == true)
        // The chat goes on.
        alice.type("still here")
        #expect(world.run(until: { bob.messages == ["still here"] }))
    }

    /// The receiver is killed mid-transfer and comes back (a new process,
    /// the same partial file): the sender's transfer, cut off with the old
    /// connection, is offered again on the new one and only the rest crosses.
    @Test func aReceiverKilledMidTransferGetsOnlyTheRestAfterItComesBack() throws {
        let world = try World()
        let sink = MemorySink()
        let (alice, bob) = try pair(world, sink: sink)
        let bytes = pattern(8 << 20)
        alice.files(.send(MemorySource(file: "big.bin", bytes: bytes), skipped: []))
        #expect(world.run(until: { sink.partial["big.bin", default: []].count > 3 << 20 }, limit: .seconds(60)))
        let had = sink.partial["big.bin", default: []].count
        world.crash(bob)
        #expect(world.run(until: { alice.count(.peerAway) == 1 }, limit: .seconds(30)))
        let back = world.resume(bob)
        let files = FileTransfers { _ in sink }
        files.readsAhead = false
        files.autoAccept = true
        back.session.attach(files)
        #expect(world.run(until: { alice.finished.count == 1 && back.finished.count == 1 }, limit: .seconds(120)),
                "\(alice.transfers.suffix(4)) \(back.transfers.suffix(3))")
        let arrived = sink.finished["big.bin"] == bytes
        #expect(arrived)
        #expect(alice.transfers.contains(.interrupted(id: 1, .sending)))
        guard case .finished(1, .sending, _, 0, let transferred, let resumed)? = alice.finished.first else { return }
        #expect(resumed == UInt64(had) && transferred == UInt64(bytes.count - had))
    }
}

extension Client {
    var finished: [FileTransfers.Update] { transfers.filter { if case .finished = $0 { true } else { false } } }
    var failed: [FileTransfers.Update] { transfers.filter { if case .failed = $0 { true } else { false } } }
}

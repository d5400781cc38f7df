@testable import ChatClient
import FileTransfer
import Testing
import TestSupport

/// A sink whose write queue the test fills and empties (as `WriteBehindSink`'s
/// does with a slow disk), on the world's clock: no thread.
final class QueueFullSink: TransferSink {
    let inner: MemorySink
    var full = false
    init(_ inner: MemorySink) { self.inner = inner }
    func hasRoom(orWake wake: @escaping @Sendable () -> Void) -> Bool { !full }
    func begin(_ offer: TransferOffer, name: SafePath) throws(TransferError) { try inner.begin(offer, name: name) }
    func makeFolder(_ path: SafePath, mode: UInt16) throws(TransferError) { try inner.makeFolder(path, mode: mode) }
    func openFile(_ path: SafePath, size: UInt64) throws(TransferError) -> UInt64 { try inner.openFile(path, size: size) }
    func readExisting(offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws(TransferError) -> Int {
        try inner.readExisting(offset: offset, into: buffer)
    }
    func truncate(to length: UInt64) throws(TransferError) { try inner.truncate(to: length) }
    func write(_ bytes: ArraySlice<UInt8>) throws(TransferError) { try inner.write(bytes) }
    func closeFile(mode: UInt16, verified: Bool) throws(TransferError) { try inner.closeFile(mode: mode, verified: verified) }
    func finish() throws(TransferError) -> String { try inner.finish() }
    func abandon() { inner.abandon() }
}

/// A receiver whose disk is behind leaves the file's data unread in the
/// connection (where, on a real one, it closes SCTP's window: HeldBytesTests)
/// instead of its loop waiting: the chat goes on meanwhile, and the file
/// completes once the sink's wake brings the driver back (`ChatManager.wake`
/// runs `handlePeerActivity`).
@Suite struct SlowDiskScenarioTests {
    @Test func aFullWriteQueueLeavesTheDataInTheConnectionAndTheChatGoesOn() throws {
        let world = try World()
        let (alice, bob) = try world.pair()
        let sending = FileTransfers { _ in MemorySink() }
        sending.readsAhead = false
        alice.session.attach(sending)
        let memory = MemorySink()
        let sink = QueueFullSink(memory)
        let files = FileTransfers { _ in sink }
        files.autoAccept = true   // reading ahead (the default): the receiver asks the sink for room
        bob.session.attach(files)

        let bytes = pattern(8 << 20)
        alice.files(.send(MemorySource(file: "big.bin", bytes: bytes), skipped: []))
        #expect(world.run(until: { memory.partial["big.bin", default: []].count > 1 << 20 }, limit: .seconds(60)))
        sink.full = true
        world.run(for: .seconds(10))
        let written = memory.partial["big.bin", default: []].count
        alice.type("still here")
        #expect(world.run(until: { bob.messages == ["still here"] }, limit: .seconds(10)))
        #expect(memory.partial["big.bin", default: []].count == written, "nothing written while the queue is full")
        let unread = (bob.session.connection as? FakePeer)?.channelEvents.count ?? 0
        #expect(unread > 0, "the file's data waits in the connection")
        #expect(bob.finished.isEmpty && bob.failed.isEmpty)

        sink.full = false
        bob.session.handlePeerActivity(now: world.now)   // the sink's wake, as the driver answers it
        bob.process()
        #expect(world.run(until: { alice.finished.count == 1 && bob.finished.count == 1 }, limit: .seconds(120)),
                "\(alice.transfers.suffix(3)) \(bob.transfers.suffix(3))")
        let arrived = memory.finished["big.bin"] == bytes   // compared here: a failure would print megabytes
        #expect(arrived)
    }
}

import FileTransfer
import PeerConnection
import SCTP

/// The file transfers of one chat, a part of its `ChatSession` (which owns
/// the connection and hands it in on every call: nothing here holds one).
/// Each transfer runs on its own data channel (label `file`,
/// FileTransfer.md): channels are opened for what we send, the peer's are
/// taken, messages move between the channels and the
/// `FileSender`/`FileReceiver` cores, and SCTP's send buffer stays below
/// `highWater` so chat messages never wait behind a file for long. A
/// transfer cut off with its connection is offered again on the next one,
/// and the receiver takes it back from its `.part`. What happened for the
/// user queues as `Update`s, which the session hands its driver
/// (`SessionAction.transfer`).
public final class FileTransfers {
    public static let channelLabel = "file"
    public static let protocolName = "chatcli-file/1"
    /// Refill the send buffer while it holds less than this.
    public static let highWater = 1 << 20

    public enum Direction: Sendable { case sending, receiving }

    /// What happened, for the user (`id`: the local transfer number).
    public enum Update: Equatable, Sendable {
        /// The peer offers something; `accept(id)` or `decline(id)`.
        case offered(id: Int, TransferOffer)
        /// We offered; waiting for the peer's answer.
        case sending(id: Int, TransferOffer, skipped: [String])
        case accepted(id: Int)
        case declined(id: Int, reason: String)
        case progress(id: Int, Direction, done: UInt64, total: UInt64?, rate: Double?, eta: Duration?)
        case fileDone(id: Int, Direction, path: String, ok: Bool)
        /// `transferred`: bytes that crossed the channel; `resumed`: bytes the receiver already had.
        case finished(id: Int, Direction, location: String?, mismatches: Int, transferred: UInt64, resumed: UInt64)
        case failed(id: Int, Direction, reason: String)
        /// Cut off with its connection; resumes on the next one.
        case interrupted(id: Int, Direction)
    }

    final class Transfer {
        let id: Int
        var channel: UInt16?
        var sender: FileSender?
        var receiver: FileReceiver?
        let source: TransferSource?
        var meter: ProgressMeter
        var lastProgress: Duration?
        var finished = false
        var closeWhenFlushed = false
        /// DATA its receiver could not take yet (the write queue was full), offered again after the disk's wake.
        var stalled: [UInt8]?

        init(id: Int, source: TransferSource?, total: UInt64?) {
            self.id = id
            self.source = source
            meter = ProgressMeter(total: total)
        }
        var direction: Direction { source != nil ? .sending : .receiving }
        var done: UInt64 { sender?.bytesDone ?? receiver?.bytesDone ?? 0 }
        /// Of `done`, what a resume found already there.
        var resumed: UInt64 { sender?.bytesSkipped ?? receiver?.bytesResumed ?? 0 }
    }

    /// Where accepted files go.
    public var makeSink: (TransferOffer) -> TransferSink
    /// Accept every offer without asking (`--auto-accept DIR`, `receive --yes`).
    public var autoAccept = false
    /// Updates not yet taken by the session (`takeUpdates`).
    var updates: [Update] = []
    /// Tests only (`CHATCLI_TEST_CORRUPT_CHUNK`): flip a bit in the Nth DATA
    /// chunk after it was hashed, as a faulty link would, to prove the
    /// receiver notices.
    public var corruptChunk: Int?
    var chunksSent = 0
    /// How often progress is reported.
    public var progressInterval: Duration = .milliseconds(250)
    /// Called from a sender's reading thread when it read on after the
    /// session found nothing to send (`FileSender.wake`): the driver's
    /// cross-thread wake (`ChatManager.attach`).
    package var wake: @Sendable () -> Void = {}
    /// Files are read (and hashed) ahead on a thread of their own; off in
    /// the in-process scenarios, whose memory "disk" answers at once on the
    /// world's clock.
    package var readsAhead = true

    var transfers: [Int: Transfer] = [:]
    var nextID = 1
    /// Offers of ours waiting for a connection (new, or cut off and to resume).
    var waiting: [Int] = []
    /// Offers we accepted that were cut off: the same offer again resumes without asking.
    var acceptedBefore: [TransferOffer] = []
    /// The session's clock, as of its last call.
    var now: Duration = .zero

    public init(makeSink: @escaping (TransferOffer) -> TransferSink) { self.makeSink = makeSink }

    /// New, empty transfers set up as these (where files go, auto-accept,
    /// the wake, reading ahead): one per pair of a group chat.
    public func configuredCopy() -> FileTransfers {
        let copy = FileTransfers(makeSink: makeSink)
        copy.autoAccept = autoAccept
        copy.corruptChunk = corruptChunk
        copy.progressInterval = progressInterval
        copy.wake = wake
        copy.readsAhead = readsAhead
        return copy
    }

    func emit(_ update: Update) { updates.append(update) }

    /// What happened since the last call, in order.
    func takeUpdates() -> [Update] {
        defer { updates = [] }
        return updates
    }

    // MARK: The user's requests (through `ChatManager`, into the session)

    /// Offers `source` to the peer (now, or once connected); the transfer's id.
    @discardableResult
    func send(_ source: TransferSource, skipped: [String] = []) -> Int {
        let t = Transfer(id: nextID, source: source, total: source.offer.totalSize)
        nextID += 1
        transfers[t.id] = t
        waiting.append(t.id)
        emit(.sending(id: t.id, source.offer, skipped: skipped))
        return t.id
    }

    /// Offers from the peer not yet answered, oldest first.
    public var pendingOffers: [Int] {
        transfers.values.filter { $0.receiver?.isAwaitingAnswer == true }.map(\.id).sorted()
    }

    func accept(_ id: Int) {
        guard let t = transfers[id], let receiver = t.receiver, receiver.isAwaitingAnswer else { return }
        if let offer = receiver.offer { acceptedBefore.append(offer) }
        receiver.accept()
    }

    func decline(_ id: Int, reason: String = "declined") {
        guard let t = transfers[id], let receiver = t.receiver else { return }
        receiver.decline(reason)
    }

    /// Stops a transfer (either direction) and tells the peer (`pc`: the connection, if any).
    func cancel(_ id: Int, reason: String = "cancelled", on pc: (any PeerTransport)?) {
        guard let t = transfers[id], !t.finished else { return }
        waiting.removeAll { $0 == id }
        t.sender?.cancel(reason)
        t.receiver?.cancel(reason)
        if t.sender == nil && t.receiver == nil { finish(t, .failed(id: id, t.direction, reason: reason), on: pc) }
    }

    /// Progress of the transfers under way, for the status line.
    public var active: [(id: Int, direction: Direction, name: String, meter: ProgressMeter)] {
        transfers.values.filter { !$0.finished && ($0.sender != nil || $0.receiver?.isAwaitingAnswer == false) }
            .sorted { $0.id < $1.id }
            .compactMap { t in (t.sender?.offer ?? t.receiver?.offer).map { (t.id, t.direction, $0.name, t.meter) } }
    }

    public var isIdle: Bool { transfers.values.allSatisfy(\.finished) }

    /// File bytes that crossed earlier connections, or transfers now over.
    var bytesSentBefore: UInt64 = 0
    var bytesReceivedBefore: UInt64 = 0

    /// File bytes that crossed the connection each way, over the whole chat (`/status`).
    public var bytesMoved: (sent: UInt64, received: UInt64) {
        var sent = bytesSentBefore, received = bytesReceivedBefore
        for t in transfers.values where !t.finished {
            sent += t.sender?.bytesSent ?? 0
            received += t.receiver?.bytesReceived ?? 0
        }
        return (sent, received)
    }

    /// The peer left the chat: whatever was under way failed with it (and
    /// leaves the prompt); what arrived stays as `.part` for a resume.
    func peerLeft() {
        waiting = []
        for t in transfers.values.sorted(by: { $0.id < $1.id }) where !t.finished {
            t.sender?.channelClosed()
            t.receiver?.channelClosed()
            // Their own "the connection closed" failure is replaced by the reason.
            while t.sender?.pollEvent() != nil {}
            while t.receiver?.pollEvent() != nil {}
            t.channel = nil
            let kept = t.direction == .receiving && t.done > t.resumed ? "; what arrived is kept (.part) for a resume" : ""
            finish(t, .failed(id: t.id, t.direction, reason: "your peer left the chat" + kept), on: nil)
        }
    }
}

extension FileTransfers.Update {
    /// The transfer this is about.
    public var id: Int {
        switch self {
        case .offered(let id, _), .sending(let id, _, _), .accepted(let id), .declined(let id, _),
             .progress(let id, _, _, _, _, _), .fileDone(let id, _, _, _), .finished(let id, _, _, _, _, _),
             .failed(let id, _, _), .interrupted(let id, _):
            return id
        }
    }
}

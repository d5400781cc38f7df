import Foundation
import Testing
import TestSupport
@testable import FileTransfer

/// What the peer is told names nothing of this machine, and every sentence
/// gives the real cause.
@Suite struct PeerWordingTests {
    /// The abort a core sent, as the peer reads it.
    func abortSent(_ messages: () -> [UInt8]?) -> String? {
        while let m = messages() {
            if case .abort(let reason)? = TransferMessage.decode(m) { return reason }
        }
        return nil
    }

    func failure(_ r: FileReceiver) -> String? {
        while let e = r.pollEvent() { if case .failed(let why) = e { return why } }
        return nil
    }

    /// A folder transfer whose partial folder already holds a file where a
    /// folder must go: the receiver stops, and the sender hears the cause
    /// in the transfer's own names, without the receiver's folder.
    @Test func abortReasonForAFolderInTheWayNamesNoLocalPath() throws {
        let dir = try TemporaryDirectory(prefix: "wd-wording")
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.file("fold4.part"), withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dir.file("fold4.part/f"), contents: Data([1]))
        let r = FileReceiver(sink: DiskSink(directory: dir.path))
        r.handle(message: TransferMessage.offer(TransferOffer(name: "fold4", totalSize: 0, fileCount: 0, folderCount: 1, isFolder: true)).encode())
        r.accept()
        r.handle(message: TransferMessage.entry(TransferEntry(path: "f", kind: .folder, mode: 0o755, size: 0)).encode())
        let reason = try #require(abortSent(r.pollMessage))
        #expect(reason == "fold4/f exists on the receiver's side as something other than a folder")
        #expect(!reason.contains(dir.path) && !reason.contains("/tmp"))
        // The local user still learns exactly where.
        #expect(failure(r) == dir.path + "/fold4.part/f exists and is not a folder")
    }

    /// A file in the way of the partial file: same rule.
    @Test func abortReasonForSomethingInTheWayOfAFileNamesNoLocalPath() throws {
        let dir = try TemporaryDirectory(prefix: "wd-wording")
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.file("report.pdf.part"), withIntermediateDirectories: true)
        let r = FileReceiver(sink: DiskSink(directory: dir.path))
        r.handle(message: TransferMessage.offer(TransferOffer(name: "report.pdf", totalSize: 3, fileCount: 1, folderCount: 0, isFolder: false)).encode())
        r.accept()
        r.handle(message: TransferMessage.entry(TransferEntry(path: "report.pdf", kind: .file, mode: 0o644, size: 3)).encode())
        let reason = try #require(abortSent(r.pollMessage))
        #expect(!reason.contains(dir.path))
        #expect(reason.contains("report.pdf"))
    }

    /// A sender whose file cannot be read tells the receiver which file of
    /// the transfer, not where it lives on the sender's disk.
    @Test func sendersReadErrorNamesNoLocalPath() throws {
        let dir = try TemporaryDirectory(prefix: "wd-wording")
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.file("photos"), withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dir.file("photos/beach.jpg"), contents: Data([1, 2, 3]))
        let source = try DiskSource(path: dir.file("photos"))
        try FileManager.default.removeItem(atPath: dir.file("photos/beach.jpg"))
        let s = FileSender(source: source)
        s.start()
        _ = s.pollMessage()
        s.handle(message: TransferMessage.accept.encode())
        var reason: String?
        while reason == nil, let m = s.pollMessage() {
            switch TransferMessage.decode(m) {
            case .abort(let why)?: reason = why
            case .entry(let e)? where e.kind == .file:
                s.handle(message: TransferMessage.resume(offset: 0, prefixHash: SHA256().digest()).encode())
            default: break
            }
        }
        #expect(s.pollEventsFailure() == dir.path + "/photos/beach.jpg does not exist")
        #expect(reason == "photos/beach.jpg does not exist")
    }

    /// `../../x` as the offered name is refused for what it is.
    @Test func aNameThatClimbsOutIsRefusedAsLeavingTheFolder() throws {
        #expect(throws: SafePath.Refusal.leavesFolder) { try SafePath(name: "../../x") }
        #expect(throws: SafePath.Refusal.leavesFolder) { try SafePath(name: "..") }
        #expect(throws: SafePath.Refusal.separator) { try SafePath(name: "a/b") }
        #expect(throws: SafePath.Refusal.leavesFolder) { try SafePath(relative: "a/../../x") }
        let r = FileReceiver(sink: MemorySink())
        r.handle(message: TransferMessage.offer(TransferOffer(name: "../../x", totalSize: 1, fileCount: 1, folderCount: 0, isFolder: false)).encode())
        r.accept()
        let reason = try #require(abortSent(r.pollMessage))
        #expect(reason == "the offered name has a '..' component, a path that leaves the folder")
        #expect(!reason.contains("control"))
    }

    /// An offer larger than the free space is declined as it arrives, with
    /// the reason on both sides, before anyone is asked to accept it.
    @Test func anOfferLargerThanTheFreeSpaceIsDeclinedUpFront() throws {
        let dir = try TemporaryDirectory(prefix: "wd-space")
        defer { dir.remove() }
        let r = FileReceiver(sink: WriteBehindSink(DiskSink(directory: dir.path)))
        let huge = TransferOffer(name: "huge.bin", totalSize: 1 << 63, fileCount: 1, folderCount: 0, isFolder: false)
        r.handle(message: TransferMessage.offer(huge).encode())
        #expect(r.pollEvent() == .offer(huge))
        #expect(!r.isAwaitingAnswer)
        #expect(r.isFinished)
        let local = try #require(failure(r))
        #expect(local.hasPrefix("declined at once: huge.bin (9223372.0 TB) is more than the "))
        #expect(local.contains(dir.path))
        let answer = try #require(r.pollMessage().flatMap(TransferMessage.decode))
        #expect(answer == .decline("the receiver's disk has less free space than the 9223372.0 TB offered"))
        r.accept()
        #expect(r.pollMessage() == nil)
        // What fits is offered to the user as before.
        let small = FileReceiver(sink: DiskSink(directory: dir.path))
        small.handle(message: TransferMessage.offer(TransferOffer(name: "small.bin", totalSize: 10, fileCount: 1, folderCount: 0, isFolder: false)).encode())
        #expect(small.isAwaitingAnswer)
    }
}

extension FileSender {
    func pollEventsFailure() -> String? {
        while let e = pollEvent() { if case .failed(let why) = e { return why } }
        return nil
    }
}

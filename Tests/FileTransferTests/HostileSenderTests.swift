import Testing
import TestSupport
@testable import FileTransfer

/// A receiver fed by a sender that lies: every lie ends the transfer
/// before anything is written outside the sink's view or past the offer.
@Suite(.computeThread) struct HostileSenderTests {
    func receiver(_ offer: TransferOffer) -> (FileReceiver, MemorySink) {
        let sink = MemorySink()
        let r = FileReceiver(sink: sink)
        r.handle(message: TransferMessage.offer(offer).encode())
        _ = r.pollEvent()
        r.accept()
        _ = r.pollMessage()
        return (r, sink)
    }

    func failure(_ r: FileReceiver) -> String? {
        while let e = r.pollEvent() { if case .failed(let why) = e { return why } }
        return nil
    }

    static let folder = TransferOffer(name: "f", totalSize: 100, fileCount: 2, folderCount: 1, isFolder: true)

    @Test(arguments: ["../x", "/etc/passwd", "a/../../x", "a//b", "./a", "a\u{0}b", "a\u{202E}txt", "CON", "nul.txt", "a\\b", "x.", "\u{1B}[2J"])
    func pathsThatEscapeOrMisleadAreRefused(path: String) {
        let (r, sink) = receiver(Self.folder)
        r.handle(message: TransferMessage.entry(TransferEntry(path: path, kind: .file, mode: 0o644, size: 1)).encode())
        #expect(failure(r)?.hasPrefix("the sender sent a path with") == true)
        #expect(sink.open == nil)
        #expect(r.pollMessage().flatMap(TransferMessage.decode).map { if case .abort = $0 { true } else { false } } == true)
    }

    @Test func offeredNameMustBeOneSafeComponent() {
        let sink = MemorySink()
        let r = FileReceiver(sink: sink)
        r.handle(message: TransferMessage.offer(TransferOffer(name: "..", totalSize: 1, fileCount: 1, folderCount: 0, isFolder: false)).encode())
        r.accept()
        #expect(sink.begun == nil)
        #expect(r.isFinished)
    }

    @Test func absurdSizeBeyondTheOfferIsRefused() {
        let (r, sink) = receiver(Self.folder)
        r.handle(message: TransferMessage.entry(TransferEntry(path: "a", kind: .file, mode: 0o644, size: .max - 1)).encode())
        #expect(failure(r) == "the sender sent more bytes than it offered")
        #expect(sink.open == nil)
    }

    @Test func moreBytesThanTheEntryIsRefused() {
        let (r, sink) = receiver(Self.folder)
        r.handle(message: TransferMessage.entry(TransferEntry(path: "a", kind: .file, mode: 0o644, size: 10)).encode())
        r.handle(message: TransferMessage.start(offset: 0).encode())
        r.handle(message: TransferMessage.data(ArraySlice(pattern(8))).encode())
        r.handle(message: TransferMessage.data(ArraySlice(pattern(8))).encode())
        #expect(failure(r) == "the sender sent more bytes than it offered for a")
        #expect(sink.partial["a"]?.count == 8)
    }

    @Test func moreEntriesThanOfferedAreRefused() {
        let (r, _) = receiver(Self.folder)
        for i in 0..<3 { r.handle(message: TransferMessage.entry(TransferEntry(path: "d\(i)", kind: .folder, mode: 0o755, size: 0)).encode()) }
        r.handle(message: TransferMessage.entry(TransferEntry(path: "d9", kind: .folder, mode: 0o755, size: 0)).encode())
        #expect(failure(r) == "the sender sent more entries than it offered")
    }

    @Test func dataBeforeStartIsAViolation() {
        let (r, _) = receiver(Self.folder)
        r.handle(message: TransferMessage.data([1, 2, 3]).encode())
        #expect(failure(r) == "protocol violation: an unexpected message")
    }

    @Test func endlessHeaderIsRefusedByTheDecoder() {
        var header = TransferMessage.offer(TransferOffer(name: "x", totalSize: 1, fileCount: 1, folderCount: 0, isFolder: false)).encode()
        header += [UInt8](repeating: 0x41, count: 300_000)
        #expect(TransferMessage.decode(header) == nil)
        let (r, _) = receiver(Self.folder)
        r.handle(message: header)
        #expect(failure(r) == "protocol violation: an undecodable message")
    }

    @Test func decoderSurvivesRandomAndTruncatedInput() {
        var rng = SeededRandom(seed: 16)
        let samples: [TransferMessage] = [
            .offer(TransferOffer(name: "ä.txt", totalSize: 5, fileCount: 1, folderCount: 0, isFolder: false)), .accept, .decline("no"),
            .entry(TransferEntry(path: "a/b", kind: .file, mode: 0o600, size: 9)), .resume(offset: 3, prefixHash: pattern(32)),
            .start(offset: 3), .data(ArraySlice(pattern(40))), .end(sha256: pattern(32)), .result(ok: false), .done, .complete, .abort("why"),
        ]
        for sample in samples {
            let bytes = sample.encode()
            #expect(TransferMessage.decode(bytes) == sample)
            for cut in 0..<bytes.count where !(sample == .data(ArraySlice(pattern(40))) && cut > 1) {
                #expect(TransferMessage.decode(Array(bytes.prefix(cut))) == nil)
            }
        }
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...80, using: &rng)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if !bytes.isEmpty { bytes[0] = UInt8.random(in: 0...13, using: &rng) }
            if let m = TransferMessage.decode(bytes), case .data = m {} else if let m = TransferMessage.decode(bytes) {
                #expect(TransferMessage.decode(m.encode()) == m)
            }
            // A receiver fed garbage in any state never crashes.
            let (r, _) = receiver(Self.folder)
            r.handle(message: bytes)
        }
    }
}

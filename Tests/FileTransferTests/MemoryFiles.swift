import Dispatch
@testable import FileTransfer

/// An in-memory `TransferSource`: entries and their bytes.
final class MemorySource: TransferSource {
    let offer: TransferOffer
    let entries: [TransferEntry]
    var contents: [Int: [UInt8]]
    var canSeek = true
    var reads = 0
    /// Reads after this many fail, as a failing disk would.
    var failAfterReads = Int.max

    init(name: String, folder: [(String, [UInt8]?)]) {
        var entries: [TransferEntry] = []
        var contents: [Int: [UInt8]] = [:]
        for (path, bytes) in folder {
            if let bytes {
                contents[entries.count] = bytes
                entries.append(TransferEntry(path: path, kind: .file, mode: 0o640, size: UInt64(bytes.count)))
            } else {
                entries.append(TransferEntry(path: path, kind: .folder, mode: 0o750, size: 0))
            }
        }
        self.entries = entries
        self.contents = contents
        let files = entries.filter { $0.kind == .file }
        offer = TransferOffer(name: name, totalSize: files.reduce(0) { $0 + $1.size }, fileCount: UInt32(files.count),
                              folderCount: UInt32(entries.count - files.count), isFolder: true)
    }

    init(file name: String, bytes: [UInt8]) {
        entries = [TransferEntry(path: name, kind: .file, mode: 0o644, size: UInt64(bytes.count))]
        contents = [0: bytes]
        offer = TransferOffer(name: name, totalSize: UInt64(bytes.count), fileCount: 1, folderCount: 0, isFolder: false)
    }

    func read(entry index: Int, offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws(TransferError) -> Int {
        reads += 1
        if reads > failAfterReads { throw TransferError("cannot read \(entries[index].path): input/output error") }
        let bytes = contents[index] ?? []
        let start = Int(min(offset, UInt64(bytes.count)))
        let n = min(buffer.count, bytes.count - start)
        bytes[start..<start + n].withUnsafeBytes { buffer.copyMemory(from: $0) }
        return n
    }
}

/// An in-memory `TransferSink` that keeps partial files across transfers
/// (what `NAME.part` does on disk) and can fail writes after a budget.
final class MemorySink: TransferSink {
    var partial: [String: [UInt8]] = [:]
    var finished: [String: [UInt8]] = [:]
    var folders: [String: UInt16] = [:]
    var modes: [String: UInt16] = [:]
    var open: String?
    var writeBudget = Int.max
    var abandoned = false
    var begun: String?

    func begin(_ offer: TransferOffer, name: SafePath) throws(TransferError) { begun = name.description }
    func makeFolder(_ path: SafePath, mode: UInt16) throws(TransferError) { folders[path.description] = mode }
    func openFile(_ path: SafePath, size: UInt64) throws(TransferError) -> UInt64 {
        open = path.description
        return UInt64(partial[path.description, default: []].count)
    }
    func readExisting(offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws(TransferError) -> Int {
        let bytes = partial[open!, default: []]
        let start = Int(offset)
        let n = min(buffer.count, bytes.count - start)
        bytes[start..<start + n].withUnsafeBytes { buffer.copyMemory(from: $0) }
        return n
    }
    func truncate(to length: UInt64) throws(TransferError) { partial[open!] = Array(partial[open!, default: []].prefix(Int(length))) }
    func write(_ bytes: ArraySlice<UInt8>) throws(TransferError) {
        guard writeBudget >= bytes.count else { throw TransferError("the disk is full writing \(open!)") }
        writeBudget -= bytes.count
        partial[open!, default: []] += bytes
    }
    func closeFile(mode: UInt16, verified: Bool) throws(TransferError) {
        if verified {
            finished[open!] = partial.removeValue(forKey: open!) ?? []
            modes[open!] = mode
        } else {
            partial[open!] = nil
        }
        open = nil
    }
    func finish() throws(TransferError) -> String { begun ?? "" }
    func abandon() { abandoned = true; open = nil }
}

/// Sender and receiver wired back to back; `corrupt` may alter messages in flight.
struct TransferPair {
    let sender: FileSender
    let receiver: FileReceiver
    var corrupt: ((inout [UInt8]) -> Void)?
    var messages = 0
    var senderEvents: [FileSender.Event] = []
    var receiverEvents: [FileReceiver.Event] = []

    /// Signalled by the sender's reading thread when it has read on (`FileSender.wake`).
    let woken = DispatchSemaphore(value: 0)

    init(source: TransferSource, sink: TransferSink, chunkSize: Int = 1000, readAhead: Bool = false) {
        let woken = woken
        sender = FileSender(source: source, chunkSize: chunkSize, readAhead: readAhead, wake: { woken.signal() })
        receiver = FileReceiver(sink: sink)
    }

    /// Moves messages both ways until nothing moves (or `limit` messages, to
    /// interrupt a transfer part way); the receiver accepts offers.
    mutating func run(limit: Int = .max, accept: Bool = true) {
        sender.start()
        var moved = true
        while moved && messages < limit {
            moved = false
            while messages < limit, var m = sender.pollMessage() {
                corrupt?(&m)
                receiver.handle(message: m)
                messages += 1
                moved = true
            }
            while let e = receiver.pollEvent() {
                receiverEvents.append(e)
                if case .offer = e { accept ? receiver.accept() : receiver.decline("no thanks") }
            }
            while let m = receiver.pollMessage() {
                sender.handle(message: m)
                moved = true
            }
            while let e = sender.pollEvent() { senderEvents.append(e) }
            // The sender never waits for its disk: it said so, and its thread's wake says when to ask again.
            if !moved && messages < limit && sender.isWaitingForDisk {
                woken.wait()
                moved = true
            }
        }
    }
}

func pattern(_ count: Int, seed: UInt8 = 7) -> [UInt8] {
    var x = UInt32(seed)
    return (0..<count).map { _ in
        x = x &* 1_103_515_245 &+ 12345
        return UInt8(truncatingIfNeeded: x >> 16)
    }
}

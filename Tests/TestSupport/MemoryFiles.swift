import FileTransfer

// In-memory sources and sinks for file-transfer tests (FileTransferTests, and the
// chat core's transfer scenarios in ChatSessionTests).

/// An in-memory `TransferSource`: entries and their bytes.
public final class MemorySource: TransferSource {
    public let offer: TransferOffer
    public let entries: [TransferEntry]
    public var contents: [Int: [UInt8]]
    public var canSeek = true
    public var reads = 0
    /// Reads after this many fail, as a failing disk would.
    public var failAfterReads = Int.max

    public init(name: String, folder: [(String, [UInt8]?)]) {
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

    public init(file name: String, bytes: [UInt8]) {
        entries = [TransferEntry(path: name, kind: .file, mode: 0o644, size: UInt64(bytes.count))]
        contents = [0: bytes]
        offer = TransferOffer(name: name, totalSize: UInt64(bytes.count), fileCount: 1, folderCount: 0, isFolder: false)
    }

    public func read(entry index: Int, offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws(TransferError) -> Int {
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
public final class MemorySink: TransferSink {
    public var partial: [String: [UInt8]] = [:]
    public var finished: [String: [UInt8]] = [:]
    public var folders: [String: UInt16] = [:]
    public var modes: [String: UInt16] = [:]
    public var open: String?
    public var writeBudget = Int.max
    public var abandoned = false
    public var begun: String?

    public init() {}

    public func begin(_ offer: TransferOffer, name: SafePath) throws(TransferError) { begun = name.description }
    public func makeFolder(_ path: SafePath, mode: UInt16) throws(TransferError) { folders[path.description] = mode }
    public func openFile(_ path: SafePath, size: UInt64) throws(TransferError) -> UInt64 {
        open = path.description
        return UInt64(partial[path.description, default: []].count)
    }
    public func readExisting(offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws(TransferError) -> Int {
        let bytes = partial[open!, default: []]
        let start = Int(offset)
        let n = min(buffer.count, bytes.count - start)
        bytes[start..<start + n].withUnsafeBytes { buffer.copyMemory(from: $0) }
        return n
    }
    public func truncate(to length: UInt64) throws(TransferError) { partial[open!] = Array(partial[open!, default: []].prefix(Int(length))) }
    public func write(_ bytes: ArraySlice<UInt8>) throws(TransferError) {
        guard writeBudget >= bytes.count else { throw TransferError("the disk is full writing \(open!)") }
        writeBudget -= bytes.count
        partial[open!, default: []] += bytes
    }
    public func closeFile(mode: UInt16, verified: Bool) throws(TransferError) {
        if verified {
            finished[open!] = partial.removeValue(forKey: open!) ?? []
            modes[open!] = mode
        } else {
            partial[open!] = nil
        }
        open = nil
    }
    public func finish() throws(TransferError) -> String { begun ?? "" }
    public func abandon() { abandoned = true; open = nil }
}

public func pattern(_ count: Int, seed: UInt8 = 7) -> [UInt8] {
    var x = UInt32(seed)
    return (0..<count).map { _ in
        x = x &* 1_103_515_245 &+ 12345
        return UInt8(truncatingIfNeeded: x >> 16)
    }
}

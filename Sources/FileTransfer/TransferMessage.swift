import Wire

/// One message of the file-transfer protocol (FileTransfer.md in
/// Sources/Signaling/Signaling.docc): a binary data-channel message (PPID 53)
/// whose first byte is the type, then big-endian fields.
public enum TransferMessage: Equatable, Sendable {
    /// Sender → receiver, first on the channel: what is offered.
    case offer(TransferOffer)
    /// Receiver → sender: go ahead.
    case accept
    /// Receiver → sender: no thanks (a sentence for the sender's user).
    case decline(String)
    /// Sender → receiver: the next folder or file.
    case entry(TransferEntry)
    /// Receiver → sender, answering a file entry: the first `offset` bytes
    /// are already here and hash to `prefixHash` (SHA-256 of those bytes).
    case resume(offset: UInt64, prefixHash: [UInt8])
    /// Sender → receiver: data follows from `offset` (the receiver's offset
    /// when the prefix matched, else 0).
    case start(offset: UInt64)
    /// Sender → receiver: the next bytes of the current file.
    case data(ArraySlice<UInt8>)
    /// Sender → receiver: the current file's bytes are all sent; SHA-256 of the whole file.
    case end(sha256: [UInt8])
    /// Receiver → sender: the file's hash matched (or not).
    case result(ok: Bool)
    /// Sender → receiver: no more entries.
    case done
    /// Receiver → sender: every entry is in place; the transfer is over.
    case complete
    /// Either side: the transfer stops (a sentence saying why).
    case abort(String)

    enum Tag: UInt8 {
        case offer = 1, accept, decline, entry, resume, start, data, end, result, done, complete, abort
    }

    /// Largest message: a DATA chunk of 64 KiB with its type byte.
    public static let maxMessageSize = 65_536
    public static let maxChunkSize = maxMessageSize - 1
    public static let hashSize = 32
    /// Longest relative path (bytes) and file name accepted.
    public static let maxPathBytes = 4096
    public static let maxNameBytes = 255
    public static let maxReasonBytes = 512
    public static let version: UInt8 = 1
    /// A size not known in advance (`send -`): the data ends with END.
    public static let unknownSize = UInt64.max

    public func encode() -> [UInt8] {
        var w = ByteWriter(capacity: 64)
        switch self {
        case .offer(let o):
            w.writeU8(Tag.offer.rawValue)
            w.writeU8(Self.version)
            w.writeU64(o.totalSize)
            w.writeU32(o.fileCount)
            w.writeU32(o.folderCount)
            w.writeU8(o.isFolder ? 1 : 0)
            Self.writeString(o.name, into: &w)
        case .accept: w.writeU8(Tag.accept.rawValue)
        case .decline(let reason):
            w.writeU8(Tag.decline.rawValue)
            Self.writeString(reason.truncatedUTF8(Self.maxReasonBytes), into: &w)
        case .entry(let e):
            w.writeU8(Tag.entry.rawValue)
            w.writeU8(e.kind.rawValue)
            w.writeU16(e.mode)
            w.writeU64(e.size)
            Self.writeString(e.path, into: &w)
        case .resume(let offset, let hash):
            w.writeU8(Tag.resume.rawValue)
            w.writeU64(offset)
            w.write(hash)
        case .start(let offset):
            w.writeU8(Tag.start.rawValue)
            w.writeU64(offset)
        case .data(let bytes):
            w = ByteWriter(capacity: bytes.count + 1)
            w.writeU8(Tag.data.rawValue)
            w.write(bytes)
        case .end(let hash):
            w.writeU8(Tag.end.rawValue)
            w.write(hash)
        case .result(let ok):
            w.writeU8(Tag.result.rawValue)
            w.writeU8(ok ? 0 : 1)
        case .done: w.writeU8(Tag.done.rawValue)
        case .complete: w.writeU8(Tag.complete.rawValue)
        case .abort(let reason):
            w.writeU8(Tag.abort.rawValue)
            Self.writeString(reason.truncatedUTF8(Self.maxReasonBytes), into: &w)
        }
        return w.bytes
    }

    /// Decodes one message; `nil` for anything malformed (unknown type,
    /// truncated, trailing bytes, over-long strings, invalid UTF-8).
    public static func decode(_ bytes: [UInt8]) -> TransferMessage? {
        guard bytes.count <= maxMessageSize else { return nil }
        var r = ByteReader(bytes)
        guard let raw = r.readU8(), let tag = Tag(rawValue: raw) else { return nil }
        let message: TransferMessage
        switch tag {
        case .offer:
            guard r.readU8() == version, let total = r.readU64(), let files = r.readU32(), let folders = r.readU32(),
                  let folderFlag = r.readU8(), folderFlag <= 1, let name = readString(&r, limit: maxNameBytes) else { return nil }
            message = .offer(TransferOffer(name: name, totalSize: total, fileCount: files, folderCount: folders, isFolder: folderFlag == 1))
        case .accept: message = .accept
        case .decline:
            guard let reason = readString(&r, limit: maxReasonBytes) else { return nil }
            message = .decline(reason)
        case .entry:
            guard let rawKind = r.readU8(), let kind = TransferEntry.Kind(rawValue: rawKind), let mode = r.readU16(), mode <= 0o777,
                  let size = r.readU64(), let path = readString(&r, limit: maxPathBytes) else { return nil }
            if kind == .folder && size != 0 { return nil }
            message = .entry(TransferEntry(path: path, kind: kind, mode: mode, size: size))
        case .resume:
            guard let offset = r.readU64(), let hash = r.readBytes(hashSize) else { return nil }
            message = .resume(offset: offset, prefixHash: hash)
        case .start:
            guard let offset = r.readU64() else { return nil }
            message = .start(offset: offset)
        case .data:
            guard r.remaining > 0 else { return nil }
            return .data(bytes[1...])
        case .end:
            guard let hash = r.readBytes(hashSize) else { return nil }
            message = .end(sha256: hash)
        case .result:
            guard let status = r.readU8(), status <= 1 else { return nil }
            message = .result(ok: status == 0)
        case .done: message = .done
        case .complete: message = .complete
        case .abort:
            guard let reason = readString(&r, limit: maxReasonBytes) else { return nil }
            message = .abort(reason)
        }
        return r.isAtEnd ? message : nil
    }

    static func writeString(_ s: String, into w: inout ByteWriter) {
        let bytes = Array(s.utf8)
        w.writeU16(UInt16(clamping: bytes.count))
        w.write(bytes.prefix(Int(UInt16.max)))
    }

    static func readString(_ r: inout ByteReader, limit: Int) -> String? {
        guard let length = r.readU16(), Int(length) <= limit, let bytes = r.readBytes(Int(length)) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}

/// What the sender offers: shown to the receiver before it accepts.
public struct TransferOffer: Equatable, Sendable {
    /// The file's or folder's name (one path component, sanitized by the receiver).
    public var name: String
    /// Bytes of all files together (`TransferMessage.unknownSize` for a stream).
    public var totalSize: UInt64
    public var fileCount: UInt32
    public var folderCount: UInt32
    public var isFolder: Bool

    public init(name: String, totalSize: UInt64, fileCount: UInt32, folderCount: UInt32, isFolder: Bool) {
        self.name = name
        self.totalSize = totalSize
        self.fileCount = fileCount
        self.folderCount = folderCount
        self.isFolder = isFolder
    }

    public var isStream: Bool { totalSize == TransferMessage.unknownSize }
}

/// One file or folder: its path relative to the offered folder (`/`
/// separated; for a single file, its name), permission bits and size.
public struct TransferEntry: Equatable, Sendable {
    public enum Kind: UInt8, Sendable { case file = 0, folder = 1 }
    public var path: String
    public var kind: Kind
    /// Permission bits only (0o777): no setuid, setgid or sticky bit crosses.
    public var mode: UInt16
    public var size: UInt64

    public init(path: String, kind: Kind, mode: UInt16, size: UInt64) {
        self.path = path
        self.kind = kind
        self.mode = mode & 0o777
        self.size = kind == .folder ? 0 : size
    }
}

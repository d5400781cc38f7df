import Glibc

/// Files and folders on disk as a `TransferSource`. A folder is walked
/// once, up front: folders before their contents, names sorted, regular
/// files only. A symbolic link is sent as the file it names when that file
/// is inside the offered folder; links that leave it, dangle, or name a
/// folder are skipped (and listed in `skipped`), so nothing outside the
/// folder is ever read. Sockets, pipes and devices are skipped too.
public final class DiskSource: TransferSource {
    public let offer: TransferOffer
    public let entries: [TransferEntry]
    /// Relative paths left out, with why.
    public let skipped: [String]
    public let canSeek = true
    let root: String
    let isFolder: Bool
    var openIndex = -1
    var fd: Int32 = -1

    public init(path: String) throws(TransferError) {
        var st = stat()
        guard lstat(path, &st) == 0 else { throw DiskErrors.error(errno, path: path, doing: "read") }
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        let name = String(trimmed.split(separator: "/").last ?? Substring(trimmed))
        let kind = st.st_mode & S_IFMT
        if kind == S_IFLNK {
            // The top-level path is what the user named: follow it.
            guard stat(path, &st) == 0 else { throw DiskErrors.error(errno, path: path, doing: "read") }
        }
        root = trimmed
        switch st.st_mode & S_IFMT {
        case S_IFREG:
            isFolder = false
            entries = [TransferEntry(path: name, kind: .file, mode: UInt16(st.st_mode & 0o777), size: UInt64(st.st_size))]
            skipped = []
            offer = TransferOffer(name: name, totalSize: UInt64(st.st_size), fileCount: 1, folderCount: 0, isFolder: false)
        case S_IFDIR:
            isFolder = true
            var walk = FolderWalk(root: trimmed)
            try walk.run()
            entries = walk.entries
            skipped = walk.skipped
            let files = walk.entries.filter { $0.kind == .file }
            offer = TransferOffer(name: name == "/" || name == "." || name == ".." ? "folder" : name,
                                  totalSize: files.reduce(0) { $0 + $1.size },
                                  fileCount: UInt32(clamping: files.count), folderCount: UInt32(clamping: walk.entries.count - files.count),
                                  isFolder: true)
        default:
            throw TransferError("\(path) is not a regular file or folder")
        }
    }

    deinit { if fd >= 0 { close(fd) } }

    public func read(entry index: Int, offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws(TransferError) -> Int {
        let path = isFolder ? root + "/" + entries[index].path : root
        // The receiver knows the entry by its path in the transfer, never by ours.
        let shown = isFolder ? offer.name + "/" + entries[index].path : offer.name
        if index != openIndex {
            if fd >= 0 { close(fd) }
            fd = open(path, O_RDONLY | O_CLOEXEC)
            openIndex = index
            guard fd >= 0 else { throw DiskErrors.error(errno, path: path, doing: "read", shown: shown) }
        }
        while true {
            let n = pread(fd, buffer.baseAddress, buffer.count, off_t(offset))
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw DiskErrors.error(errno, path: path, doing: "read", shown: shown)
        }
    }
}

/// The folder walk behind `DiskSource` (depth first, sorted, bounded depth).
struct FolderWalk {
    let root: String
    let realRoot: String
    var entries: [TransferEntry] = []
    var skipped: [String] = []

    init(root: String) {
        self.root = root
        realRoot = Self.realPath(root) ?? root
    }

    mutating func run() throws(TransferError) { try walk(relative: "", depth: 0) }

    mutating func walk(relative: String, depth: Int) throws(TransferError) {
        guard depth < 64 else { skipped.append(relative + " (nested too deep)"); return }
        let folder = relative.isEmpty ? root : root + "/" + relative
        guard let dir = opendir(folder) else { throw DiskErrors.error(errno, path: folder, doing: "read") }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(dir)
        for name in names.sorted() {
            let rel = relative.isEmpty ? name : relative + "/" + name
            let full = root + "/" + rel
            var st = stat()
            guard lstat(full, &st) == 0 else { skipped.append(rel + " (unreadable)"); continue }
            if (st.st_mode & S_IFMT) == S_IFLNK {
                guard let target = Self.realPath(full), target.hasPrefix(realRoot + "/") else {
                    skipped.append(rel + " (a link that leaves the folder)"); continue
                }
                guard stat(full, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
                    skipped.append(rel + " (a link to something other than a file)"); continue
                }
            }
            switch st.st_mode & S_IFMT {
            case S_IFDIR:
                entries.append(TransferEntry(path: rel, kind: .folder, mode: UInt16(st.st_mode & 0o777), size: 0))
                try walk(relative: rel, depth: depth + 1)
            case S_IFREG:
                entries.append(TransferEntry(path: rel, kind: .file, mode: UInt16(st.st_mode & 0o777), size: UInt64(st.st_size)))
            default:
                skipped.append(rel + " (not a regular file)")
            }
        }
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// Standard input as a one-file `TransferSource` of unknown size (`send -`).
public final class StreamSource: TransferSource {
    public let offer: TransferOffer
    public let entries: [TransferEntry]
    public let canSeek = false
    let fd: Int32

    public init(name: String, fd: Int32 = 0) {
        self.fd = fd
        offer = TransferOffer(name: name, totalSize: TransferMessage.unknownSize, fileCount: 1, folderCount: 0, isFolder: false)
        entries = [TransferEntry(path: name, kind: .file, mode: 0o644, size: TransferMessage.unknownSize)]
    }

    public func read(entry index: Int, offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws(TransferError) -> Int {
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            if errno == EAGAIN {   // a non-blocking stdin: wait for it
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                _ = poll(&p, 1, -1)
                continue
            }
            throw DiskErrors.error(errno, path: "standard input", doing: "read", shown: "standard input")
        }
    }
}

enum DiskErrors {
    /// One sentence for a failed system call on `path`; the peer's names
    /// `shown` instead (the path inside the transfer, which the peer knows),
    /// or only what happened when there is none.
    static func error(_ code: Int32, path: String, doing: String, shown: String? = nil) -> TransferError {
        TransferError(sentence(code, path: path, doing: doing), peer: sentence(code, path: shown, doing: doing))
    }

    static func sentence(_ code: Int32, path: String?, doing: String) -> String {
        let it = path ?? "a file"
        return switch code {
        case ENOSPC, EDQUOT: "the disk is full writing \(it)"
        case EACCES, EPERM: "permission denied: cannot \(doing) \(it)"
        case EROFS: "\(path ?? "the folder") is on a read-only file system"
        case ENOENT: "\(path ?? "a file or folder") does not exist"
        case ELOOP: "\(path ?? "a path") is a symbolic link, which is not followed"
        default: "cannot \(doing) \(it): \(String(cString: strerror(code)))"
        }
    }
}

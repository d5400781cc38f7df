import Glibc

/// A `TransferSink` writing into a folder. A file arrives as `NAME.part`, a
/// folder as `NAME.part/`; both are renamed to `NAME` once everything is
/// verified, or to `NAME (1)`, `NAME (2)`… when `NAME` exists (unless
/// `overwrite`). Files are created with `O_NOFOLLOW` and must be regular
/// files; nothing is created outside the target folder. Partial data stays
/// for a resume; permissions are applied at the end, so a read-only file
/// can still be resumed.
public final class DiskSink: TransferSink {
    public let directory: String
    public let overwrite: Bool
    var name: SafePath?
    var isFolder = false
    var fd: Int32 = -1
    var openPath = ""
    var modes: [(path: String, mode: UInt16, isFolder: Bool)] = []

    public init(directory: String, overwrite: Bool = false) {
        self.directory = directory
        self.overwrite = overwrite
    }

    deinit { if fd >= 0 { close(fd) } }

    var partPath: String { directory + "/" + (name?.name ?? "") + ".part" }

    public func begin(_ offer: TransferOffer, name: SafePath) throws(TransferError) {
        self.name = name
        isFolder = offer.isFolder
        var st = stat()
        guard stat(directory, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { throw TransferError("\(directory) is not a folder") }
        if isFolder {
            try makeDirectory(partPath)
        }
    }

    func makeDirectory(_ path: String) throws(TransferError) {
        if mkdir(path, 0o700) == 0 { return }
        let code = errno
        var st = stat()
        if code == EEXIST, lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR { return }
        throw code == EEXIST ? TransferError("\(path) exists and is not a folder") : DiskErrors.error(code, path: path, doing: "create")
    }

    /// Where `path` (inside the offered folder) lives now; every folder on
    /// the way must be a real folder we could have made, not a link.
    func location(_ path: SafePath) throws(TransferError) -> String {
        guard isFolder else { return partPath }
        var full = partPath
        for component in path.components.dropLast() {
            full += "/" + component
            var st = stat()
            guard lstat(full, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
                throw TransferError("the sender's path \(path) goes through something that is not a folder")
            }
        }
        return full + "/" + path.name
    }

    public func makeFolder(_ path: SafePath, mode: UInt16) throws(TransferError) {
        let full = try location(path)
        try makeDirectory(full)
        modes.append((full, mode, true))
    }

    public func openFile(_ path: SafePath, size: UInt64) throws(TransferError) -> UInt64 {
        let full = try location(path)
        fd = open(full, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw DiskErrors.error(errno, path: full, doing: "write") }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            fd = -1
            throw TransferError("\(full) exists and is not a regular file")
        }
        _ = fcntl(fd, F_SETFL, O_RDWR)
        openPath = full
        modes.append((full, 0, false))
        return UInt64(st.st_size)
    }

    public func readExisting(offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws(TransferError) -> Int {
        let n = pread(fd, buffer.baseAddress, buffer.count, off_t(offset))
        guard n >= 0 else { throw DiskErrors.error(errno, path: openPath, doing: "read") }
        return n
    }

    /// Only when the length differs: ext4 takes a truncation to 0 for a
    /// file about to be replaced and writes the whole file out at `close`
    /// (`auto_da_alloc`), which cost 0.2 s at the end of 512 MiB.
    public func truncate(to length: UInt64) throws(TransferError) {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw DiskErrors.error(errno, path: openPath, doing: "write") }
        if UInt64(st.st_size) != length, ftruncate(fd, off_t(length)) != 0 {
            throw DiskErrors.error(errno, path: openPath, doing: "write")
        }
        guard lseek(fd, off_t(length), SEEK_SET) >= 0 else { throw DiskErrors.error(errno, path: openPath, doing: "write") }
    }

    public func write(_ bytes: ArraySlice<UInt8>) throws(TransferError) {
        let code = writeAll(fd, bytes)
        if code != 0 { throw DiskErrors.error(code, path: openPath, doing: "write") }
    }

    public func closeFile(mode: UInt16, verified: Bool) throws(TransferError) {
        if fd >= 0 { close(fd) }
        fd = -1
        if !verified {
            unlink(openPath)
            modes.removeAll { $0.path == openPath }
            return
        }
        if let index = modes.lastIndex(where: { $0.path == openPath }) { modes[index].mode = mode }
    }

    public func finish() throws(TransferError) -> String {
        // Deepest first, so a folder that loses its write bit is done last.
        for (path, mode, _) in modes.reversed() { chmod(path, mode_t(mode)) }
        if isFolder { chmod(partPath, 0o755 & ~currentUmask()) }
        let base = directory + "/" + (name?.name ?? "")
        var target = base
        var st = stat()
        if !overwrite {
            var n = 1
            while lstat(target, &st) == 0 {
                target = Self.numbered(base, n, isFolder: isFolder)
                n += 1
            }
        }
        guard rename(partPath, target) == 0 else { throw DiskErrors.error(errno, path: target, doing: "create") }
        return target
    }

    /// `report (1).pdf` for a file, `photos (1)` for a folder.
    static func numbered(_ base: String, _ n: Int, isFolder: Bool) -> String {
        let slash = base.lastIndex(of: "/").map { base.index(after: $0) } ?? base.startIndex
        let name = base[slash...]
        if !isFolder, let dot = name.lastIndex(of: "."), dot != name.startIndex {
            return String(base[..<dot]) + " (\(n))" + String(base[dot...])
        }
        return base + " (\(n))"
    }

    func currentUmask() -> mode_t {
        let old = umask(0o022)
        umask(old)
        return old
    }

    public func abandon() {
        if fd >= 0 { close(fd) }
        fd = -1
    }
}

/// Standard output as a `TransferSink` for one file (`receive --out -`):
/// nothing to resume, no folders.
public final class StreamSink: TransferSink {
    let fd: Int32
    public init(fd: Int32 = 1) { self.fd = fd }

    public func begin(_ offer: TransferOffer, name: SafePath) throws(TransferError) {
        guard !offer.isFolder else { throw TransferError("a folder cannot be written to standard output; use --out DIR") }
    }
    public func makeFolder(_ path: SafePath, mode: UInt16) throws(TransferError) {
        throw TransferError("a folder cannot be written to standard output")
    }
    public func openFile(_ path: SafePath, size: UInt64) throws(TransferError) -> UInt64 { 0 }
    public func readExisting(offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws(TransferError) -> Int { 0 }
    public func truncate(to length: UInt64) throws(TransferError) {}
    public func write(_ bytes: ArraySlice<UInt8>) throws(TransferError) {
        let code = writeAll(fd, bytes)
        if code != 0 { throw TransferError("cannot write to standard output: \(String(cString: strerror(code)))") }
    }
    public func closeFile(mode: UInt16, verified: Bool) throws(TransferError) {}
    public func finish() throws(TransferError) -> String { "standard output" }
    public func abandon() {}
}

/// Writes all of `bytes` (retrying short writes, EINTR and EAGAIN); 0 or the errno.
func writeAll(_ fd: Int32, _ bytes: ArraySlice<UInt8>) -> Int32 {
    bytes.withUnsafeBytes { raw in
        var done = 0
        while done < raw.count {
            let n = Glibc.write(fd, raw.baseAddress! + done, raw.count - done)
            if n > 0 { done += n; continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == EAGAIN {
                var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&p, 1, -1)
                continue
            }
            return n < 0 ? errno : ENOSPC
        }
        return 0
    }
}

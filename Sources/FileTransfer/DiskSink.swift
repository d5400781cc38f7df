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
    /// `openPath` as the sender knows it: its path in the transfer.
    var openShown = ""
    var modes: [(path: String, mode: UInt16, isFolder: Bool)] = []

    public init(directory: String, overwrite: Bool = false) {
        self.directory = directory
        self.overwrite = overwrite
    }

    deinit { if fd >= 0 { close(fd) } }

    var partPath: String { directory + "/" + (name?.name ?? "") + ".part" }

    /// Space is checked with `statvfs` on the target folder (what an
    /// unprivileged process may use); a file's partial data from an
    /// earlier attempt counts as space already had. A stream's size is not
    /// known, so it is never refused here.
    public func refusal(of offer: TransferOffer) -> TransferError? {
        guard !offer.isStream else { return nil }
        var vfs = statvfs()
        guard statvfs(directory, &vfs) == 0 else { return nil }
        let (free, overflow) = UInt64(vfs.f_bavail).multipliedReportingOverflow(by: UInt64(vfs.f_frsize))
        var have = overflow ? UInt64.max : free
        var st = stat()
        if !offer.isFolder, let name = try? SafePath(name: offer.name), lstat(directory + "/" + name.name + ".part", &st) == 0,
           (st.st_mode & S_IFMT) == S_IFREG
        {
            have = have.addingReportingOverflow(UInt64(st.st_size)).overflow ? UInt64.max : have + UInt64(st.st_size)
        }
        guard offer.totalSize > have else { return nil }
        return TransferError("declined at once: \(offer.name) (\(ProgressMeter.bytes(offer.totalSize))) is more than the \(ProgressMeter.bytes(have)) free in \(directory)",
                             peer: "the receiver's disk has less free space than the \(ProgressMeter.bytes(offer.totalSize)) offered")
    }

    public func begin(_ offer: TransferOffer, name: SafePath) throws(TransferError) {
        self.name = name
        isFolder = offer.isFolder
        var st = stat()
        guard stat(directory, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            throw TransferError("\(directory) is not a folder", peer: "the receiver's folder for received files is missing or not a folder")
        }
        if isFolder {
            try makeDirectory(partPath, shown: name.description)
        }
    }

    /// The path as the sender knows it (inside the transfer), for what the sender is told.
    func shown(_ path: SafePath) -> String {
        guard let name else { return path.description }
        return isFolder ? name.appending(path).description : name.description
    }

    func makeDirectory(_ path: String, shown: String) throws(TransferError) {
        if mkdir(path, 0o700) == 0 { return }
        let code = errno
        var st = stat()
        if code == EEXIST, lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR { return }
        throw code == EEXIST
            ? TransferError("\(path) exists and is not a folder", peer: "\(shown) exists on the receiver's side as something other than a folder")
            : DiskErrors.error(code, path: path, doing: "create", shown: shown)
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
                throw TransferError("the sender's path \(path) goes through \(full), which is not a folder",
                                    peer: "the path \(path) goes through something on the receiver's side that is not a folder")
            }
        }
        return full + "/" + path.name
    }

    public func makeFolder(_ path: SafePath, mode: UInt16) throws(TransferError) {
        let full = try location(path)
        try makeDirectory(full, shown: shown(path))
        modes.append((full, mode, true))
    }

    public func openFile(_ path: SafePath, size: UInt64) throws(TransferError) -> UInt64 {
        let full = try location(path)
        let shown = shown(path)
        fd = open(full, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw DiskErrors.error(errno, path: full, doing: "write", shown: shown) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            fd = -1
            throw TransferError("\(full) exists and is not a regular file", peer: "\(shown) exists on the receiver's side as something other than a regular file")
        }
        _ = fcntl(fd, F_SETFL, O_RDWR)
        openPath = full
        openShown = shown
        modes.append((full, 0, false))
        return UInt64(st.st_size)
    }

    public func readExisting(offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws(TransferError) -> Int {
        let n = pread(fd, buffer.baseAddress, buffer.count, off_t(offset))
        guard n >= 0 else { throw DiskErrors.error(errno, path: openPath, doing: "read", shown: openShown) }
        return n
    }

    /// Only when the length differs: ext4 takes a truncation to 0 for a
    /// file about to be replaced and writes the whole file out at `close`
    /// (`auto_da_alloc`), which cost 0.2 s at the end of 512 MiB.
    public func truncate(to length: UInt64) throws(TransferError) {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw DiskErrors.error(errno, path: openPath, doing: "write", shown: openShown) }
        if UInt64(st.st_size) != length, ftruncate(fd, off_t(length)) != 0 {
            throw DiskErrors.error(errno, path: openPath, doing: "write", shown: openShown)
        }
        guard lseek(fd, off_t(length), SEEK_SET) >= 0 else { throw DiskErrors.error(errno, path: openPath, doing: "write", shown: openShown) }
    }

    public func write(_ bytes: ArraySlice<UInt8>) throws(TransferError) {
        let code = writeAll(fd, bytes)
        if code != 0 { throw DiskErrors.error(code, path: openPath, doing: "write", shown: openShown) }
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
        guard rename(partPath, target) == 0 else { throw DiskErrors.error(errno, path: target, doing: "create", shown: name?.description) }
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

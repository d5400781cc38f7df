import Glibc
import Wire

/// The POSIX file operations the store needs, each mapping errno to a
/// ``SessionStoreError``. Atomic replacement is: temp file in the same
/// directory (O_EXCL, 0600) → write → fsync → close → rename → fsync(dir).
enum FileIO {
    static let maxFileSize = 16 << 20

    static func fail(_ operation: String, _ path: String, _ e: Int32 = errno) -> SessionStoreError {
        SessionStoreError.fromErrno(e, operation: operation, path: path)
    }

    /// `mkdir -p` with mode 0700 for every directory it creates; the last
    /// component (chatcli's own directory) is tightened to 0700 if we own it.
    static func ensureDirectory(_ path: String) throws(SessionStoreError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o700) != 0 && errno != EEXIST { throw fail("mkdir", current) }
        }
        var st = stat()
        guard stat(path, &st) == 0 else { throw fail("stat", path) }
        guard (st.st_mode & S_IFMT) == S_IFDIR else { throw .io(operation: "mkdir", path: path, errno: ENOTDIR) }
        if st.st_uid == geteuid() && (st.st_mode & 0o077) != 0 { _ = chmod(path, 0o700) }
    }

    static func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    /// The whole file, or nil if it does not exist.
    static func readFile(_ path: String) throws(SessionStoreError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw fail("open", path)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw fail("stat", path) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw .corrupted(reason: "not a regular file") }
        guard Int(st.st_size) <= maxFileSize else { throw .corrupted(reason: "file too large") }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw fail("read", path)
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
            guard bytes.count <= maxFileSize else { throw .corrupted(reason: "file too large") }
        }
        return bytes
    }

    /// Writes `bytes` to a new temp file next to `path` and fsyncs it.
    /// Returns the temp path; nothing visible has changed yet.
    static func writeTemp(_ bytes: [UInt8], for path: String) throws(SessionStoreError) -> String {
        let temp = path + tempMarker + Hex.encode(StoreFormat.randomBytes(6))
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw fail("create", temp) }
        var closed = false
        var committed = false
        defer {
            if !closed { close(fd) }
            if !committed { unlink(temp) }
        }
        // The umask can only remove bits, but be explicit: the store is 0600.
        guard fchmod(fd, 0o600) == 0 else { throw fail("chmod", temp) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress.map { $0 + offset }, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw fail("write", path)
            }
            offset += n
        }
        guard fsync(fd) == 0 else { throw fail("fsync", path) }
        closed = true
        // close can report a deferred write error (NFS, quota).
        guard close(fd) == 0 else { throw fail("close", path) }
        committed = true
        return temp
    }

    /// Renames the temp file over `path`, then fsyncs the directory so the
    /// rename itself is durable.
    static func commit(temp: String, to path: String) throws(SessionStoreError) {
        guard rename(temp, path) == 0 else {
            let e = errno
            unlink(temp)
            throw fail("rename", path, e)
        }
        // Best effort: the new contents are already in place, so a failing
        // directory fsync must not be reported as "sessions unchanged".
        syncDirectory(of: path)
    }

    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(SessionStoreError) {
        try commit(temp: try writeTemp(bytes, for: path), to: path)
    }

    static func syncDirectory(of path: String) {
        let fd = open(directory(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    static let tempMarker = ".tmp-"

    /// Removes temp files left by a crashed writer. Call with the exclusive lock held.
    static func removeStaleTemps(for path: String) {
        let dirPath = directory(of: path)
        let prefix = basename(of: path) + tempMarker
        guard let dir = opendir(dirPath) else { return }
        defer { closedir(dir) }
        var stale: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name.hasPrefix(prefix) { stale.append(dirPath + "/" + name) }
        }
        for file in stale { unlink(file) }
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func basename(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// Removes a file; a missing file is fine.
    static func remove(_ path: String) throws(SessionStoreError) {
        if unlink(path) != 0 && errno != ENOENT { throw fail("remove", path) }
    }
}

import CSodium
import Glibc

/// Marks one saved session as open in this process, so a second chatcli
/// that tries to continue it is refused at once with the holder's pid,
/// instead of both fighting over the same room seat.
///
/// An advisory `flock` on `locks/<hash>.lock` next to the store, held until
/// the object goes away (in practice, until the process ends; the kernel
/// drops the lock however the process ends, so a crash leaves none behind).
/// The file name is a keyed hash of the session's first device id, which
/// never changes when the session is renamed and reveals neither its name
/// nor its code. The file holds the holder's pid, for the refusal sentence.
/// Lock files are never removed while the store lives (removing one that
/// someone is about to lock would let two processes hold "the" lock); they
/// are a few bytes each, and `erase` removes them all.
public final class SessionLock {
    private let fd: Int32

    /// Takes the lock for the session named `name` (for the message) whose
    /// first device id is `deviceID`; throws ``SessionStoreError/sessionOpenElsewhere(name:pid:)``
    /// at once, without waiting, if another process holds it.
    init(directory: String, deviceID: String, name: String) throws(SessionStoreError) {
        try FileIO.ensureDirectory(directory)
        let path = directory + "/" + Self.fileName(deviceID: deviceID)
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw FileIO.fail("open", path) }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let e = errno
            if e == EINTR { continue }
            let holder = Self.readPID(fd)
            close(fd)
            if e == EWOULDBLOCK { throw .sessionOpenElsewhere(name: name, pid: holder) }
            throw FileIO.fail("lock", path, e)
        }
        // Ours now: record who holds it (a stale pid from a previous holder is overwritten).
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        self.fd = fd
    }

    deinit {
        close(fd)  // releases the flock
    }

    /// 32 hex characters: BLAKE2b-128 of the device id under a fixed key, so
    /// the name cannot be matched to the id without knowing it is chatcli's.
    static func fileName(deviceID: String) -> String {
        let key = Array("chatcli session lock v1".utf8)
        let input = Array(deviceID.utf8)
        var digest = [UInt8](repeating: 0, count: 16)
        _ = crypto_generichash(&digest, digest.count, input, UInt64(input.count), key, key.count)
        let hex = Array("0123456789abcdef".utf8)
        return String(decoding: digest.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 15)]] }, as: UTF8.self) + ".lock"
    }

    /// Removes the lock files and their directory (for `erase`, best effort).
    static func removeAll(in directory: String) {
        guard let dir = opendir(directory) else { return }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name.hasSuffix(".lock") { names.append(name) }
        }
        closedir(dir)
        for name in names { unlink(directory + "/" + name) }
        rmdir(directory)
    }

    private static func readPID(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return nil }
        return Int32(String(decoding: buffer[..<n], as: UTF8.self).split(separator: "\n").first ?? "")
    }
}

extension SessionStore {
    /// `locks/`, next to the store file.
    public var locksDirectory: String { directory + "/locks" }

    /// Marks the session open in this process until the returned lock is released (see ``SessionLock``).
    public func lockSession(deviceID: String, name: String) throws(SessionStoreError) -> SessionLock {
        try SessionLock(directory: locksDirectory, deviceID: deviceID, name: name)
    }
}

import Glibc

/// An advisory `flock` on a separate lock file, held for the life of the
/// object. The lock file is never replaced (only the store file is renamed
/// over), so every process locks the same inode.
///
/// flock locks belong to the open file description, so two threads of one
/// process that each create a `FileLock` exclude each other too.
final class FileLock {
    private let fd: Int32

    /// Waits up to `timeout` seconds (0: a single try) for the lock.
    init(path: String, exclusive: Bool, timeout: Double) throws(SessionStoreError) {
        // A reader opens read-only (flock works on any descriptor), so a store
        // on a read-only file system can still be listed.
        var fd = exclusive ? -1 : open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 { fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600) }
        guard fd >= 0 else { throw FileIO.fail("open", path) }
        let operation = (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB
        let deadline = Self.monotonicSeconds() + max(0, timeout)
        // Poll with LOCK_NB instead of blocking so the wait is bounded; the
        // interval grows to 50 ms, which is invisible next to Argon2's ~0.1 s.
        var pause = 0.002
        while flock(fd, operation) != 0 {
            let e = errno
            if e == EINTR { continue }
            guard e == EWOULDBLOCK, Self.monotonicSeconds() < deadline else {
                close(fd)
                if e == EWOULDBLOCK { throw .lockTimeout(path: path) }
                throw FileIO.fail("lock", path, e)
            }
            var ts = timespec(tv_sec: 0, tv_nsec: Int(pause * 1e9))
            nanosleep(&ts, nil)
            pause = min(pause * 2, 0.05)
        }
        self.fd = fd
    }

    deinit {
        _ = flock(fd, LOCK_UN)
        close(fd)
    }

    static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

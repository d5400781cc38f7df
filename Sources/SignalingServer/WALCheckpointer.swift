import CSQLite
import Glibc
import Runtime

/// Checkpoints the room database's write-ahead log on a thread of its own,
/// so the event loop never stalls on the checkpoint's fsync (which takes
/// 10–20 ms on a virtual disk and froze every connection while it ran).
/// Uses its own SQLite connection; PASSIVE never blocks the writer.
///
/// A connection that has not yet read the database has not opened its log
/// either, and `sqlite3_wal_checkpoint_v2` on it does nothing (it reports a
/// log of -1 frames): so the thread reads the schema first. Once a
/// checkpoint has copied the whole log back, the writer's next commit
/// starts the log again and truncates its file (`journal_size_limit`, set
/// by ``SQLiteRoomStore``), so the file stays small whatever the traffic.
enum WALCheckpointer {
    static func start(path: String, interval: UInt32 = 1) {
        _ = startDetachedThread {
            guard let db = open(path) else { return }
            while true {
                sleep(interval)
                _ = checkpoint(db)
            }
        }
    }

    /// A connection to `path` that has read its schema (so it sees the log).
    static func open(_ path: String) -> OpaquePointer? {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let db = handle else {
            sqlite3_close(handle)
            return nil
        }
        sqlite3_busy_timeout(db, 1000)
        _ = sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nil, nil, nil)
        return db
    }

    /// One PASSIVE checkpoint; returns the frames copied back, or nil when it failed.
    static func checkpoint(_ db: OpaquePointer) -> Int32? {
        var logFrames: Int32 = 0
        var copied: Int32 = 0
        guard sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, &logFrames, &copied) == SQLITE_OK, logFrames >= 0 else { return nil }
        return copied
    }
}

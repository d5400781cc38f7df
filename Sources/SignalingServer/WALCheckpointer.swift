import CSQLite
import Foundation

/// Checkpoints the room database's write-ahead log on a thread of its own,
/// so the event loop never stalls on the checkpoint's fsync (which takes
/// 10–20 ms on a virtual disk and froze every connection while it ran).
/// Uses its own SQLite connection; PASSIVE never blocks the writer.
enum WALCheckpointer {
    static func start(path: String, interval: UInt32 = 1) {
        let thread = Thread {
            var handle: OpaquePointer?
            guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let db = handle else {
                sqlite3_close(handle)
                return
            }
            sqlite3_busy_timeout(db, 1000)
            while true {
                sleep(interval)
                sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            }
        }
        thread.name = "wal-checkpoint"
        thread.start()
    }
}

import CSQLite
import Glibc

/// Checkpoints the room database's write-ahead log on a thread of its own,
/// so the event loop never stalls on the checkpoint's fsync (which takes
/// 10–20 ms on a virtual disk and froze every connection while it ran).
/// Uses its own SQLite connection; PASSIVE never blocks the writer.
enum WALCheckpointer {
    static func start(path: String, interval: UInt32 = 1) {
        startThread {
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
    }

    /// A detached POSIX thread that takes no signal (the loop reads them from
    /// a signalfd). Not Foundation's `Thread`: the server links no
    /// Foundation, so the binary links the Swift runtime statically.
    private static func startThread(_ body: @escaping @Sendable () -> Void) {
        final class Body: Sendable {
            let run: @Sendable () -> Void
            init(_ run: @escaping @Sendable () -> Void) { self.run = run }
        }
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var all = sigset_t(), previous = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_SETMASK, &all, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        var thread = pthread_t()
        guard pthread_create(&thread, nil, { argument in
            guard let argument else { return nil }
            Unmanaged<Body>.fromOpaque(argument).takeRetainedValue().run()
            return nil
        }, context) == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return
        }
        pthread_detach(thread)
    }
}

import Glibc
import Runtime

/// A mutex and its condition variable: the hand-off between the event loop
/// and a file's worker thread (`WriteBehindSink`, `ReadAhead`).
final class Monitor: @unchecked Sendable {
    // @unchecked: the pthread objects are made for sharing between threads.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        changed.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    /// With the lock held: releases it until `broadcast`, then holds it again.
    func wait() { pthread_cond_wait(changed, mutex) }
    func broadcast() { pthread_cond_broadcast(changed) }
}

/// Runs `body` on a worker thread that takes no signal; false if no thread could be created.
func startWorkerThread(_ body: @escaping @Sendable () -> Void) -> Bool {
    startDetachedThread(body) == 0
}

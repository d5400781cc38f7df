import Glibc

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

/// Runs `body` on a new detached thread that takes no signal (the loop
/// reads them from a signalfd, and one delivered there would take its
/// default action); false if no thread could be created.
func startWorkerThread(_ body: @escaping @Sendable () -> Void) -> Bool {
    let context = Unmanaged.passRetained(WorkerBody(body)).toOpaque()
    var all = sigset_t(), previous = sigset_t()
    sigfillset(&all)
    pthread_sigmask(SIG_SETMASK, &all, &previous)
    defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
    var thread = pthread_t()
    let rc = pthread_create(&thread, nil, { argument in
        guard let argument else { return nil }
        Unmanaged<WorkerBody>.fromOpaque(argument).takeRetainedValue().body()
        return nil
    }, context)
    guard rc == 0 else {
        Unmanaged<WorkerBody>.fromOpaque(context).release()
        return false
    }
    pthread_detach(thread)
    return true
}

private final class WorkerBody: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

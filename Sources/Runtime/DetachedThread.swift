import Glibc

/// Runs `body` on a new detached POSIX thread that takes no signal (the loop
/// reads them from a signalfd, and one delivered to another thread would take
/// its default action). Not Foundation's `Thread`: chatcli links no Foundation,
/// so the binary links the Swift runtime statically.
///
/// Returns 0, or `pthread_create`'s error number when no thread could be made.
public func startDetachedThread(_ body: @escaping @Sendable () -> Void) -> Int32 {
    let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var all = sigset_t(), previous = sigset_t()
    sigfillset(&all)
    pthread_sigmask(SIG_SETMASK, &all, &previous)
    defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
    var thread = pthread_t()
    let rc = pthread_create(&thread, nil, { argument in
        guard let argument else { return nil }
        Unmanaged<ThreadBody>.fromOpaque(argument).takeRetainedValue().body()
        return nil
    }, context)
    guard rc == 0 else {
        Unmanaged<ThreadBody>.fromOpaque(context).release()
        return rc
    }
    pthread_detach(thread)
    return 0
}

private final class ThreadBody: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

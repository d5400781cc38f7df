import Glibc
import CShims

extension EventLoop {
    /// Calls `fn` whenever `fd` is readable, until the returned watch is
    /// cancelled. The loop neither reads nor closes `fd`: `fn` must read
    /// (level-triggered: unread data means another call next turn).
    ///
    /// Regular files cannot be polled (epoll says EPERM); they are always
    /// readable, so `fn` is then called on every turn: cancel the watch at EOF.
    public func watchReadable(fd: Int32, _ fn: @escaping () -> Void) throws(RuntimeError) -> Watch {
        let watch = Watch(loop: self, fd: fd, callback: fn)
        do {
            try register(fd, events: Epoll.in, handler: watch)
            watch.mode = .epoll
        } catch {
            guard error.errno == EPERM else { throw error }
            addAlwaysReady(watch)
            watch.mode = .alwaysReady
        }
        return watch
    }
}

/// A readability watch on a descriptor the caller owns (see ``EventLoop/watchReadable(fd:_:)``).
public final class Watch: EventHandler {
    enum Mode { case none, epoll, alwaysReady }

    private let loop: EventLoop
    public let fd: Int32
    private var callback: (() -> Void)?
    var mode = Mode.none

    init(loop: EventLoop, fd: Int32, callback: @escaping () -> Void) {
        self.loop = loop
        self.fd = fd
        self.callback = callback
    }

    /// True until cancelled.
    public var isActive: Bool { callback != nil }

    /// Stops calling back; the descriptor stays open. Safe from the callback itself.
    public func cancel() {
        guard callback != nil else { return }
        callback = nil
        switch mode {
        case .epoll: loop.deregister(fd)
        case .alwaysReady: loop.removeAlwaysReady(self)
        case .none: break
        }
        mode = .none
    }

    func fire() {
        callback?()
    }

    func handleEvent(_ events: UInt32) {
        fire()
    }
}

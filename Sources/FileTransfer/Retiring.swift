import Synchronization

/// The `WriteBehindSink`s of this process that were abandoned with writes
/// still queued: their threads write them (what arrived is kept for a
/// resume) without the loop waiting. Until none is left, no other sink
/// opens a file, since the next receiver of the same transfer opens the
/// same `.part`; `isIdle(orWake:)` says so without waiting, and the last
/// one to finish wakes whoever asked.
enum Retiring {
    struct State {
        var count = 0
        var wakes: [@Sendable () -> Void] = []
    }

    static let state = Mutex(State())

    /// On the loop: one more sink writes on after its abandon.
    static func enter() { state.withLock { $0.count += 1 } }

    /// On a sink's thread, once it has written everything and abandoned its sink.
    static func leave() {
        let wakes = state.withLock { state -> [@Sendable () -> Void] in
            state.count -= 1
            guard state.count == 0 else { return [] }
            defer { state.wakes = [] }
            return state.wakes
        }
        for wake in wakes { wake() }
    }

    /// Whether no abandoned sink still writes; if one does, `wake` is called once none does.
    static func isIdle(orWake wake: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            guard state.count > 0 else { return true }
            state.wakes.append(wake)
            return false
        }
    }
}

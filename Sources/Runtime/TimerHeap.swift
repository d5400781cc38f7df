/// A one-shot timer scheduled on an ``EventLoop``. Holding it is optional;
/// it only exists so the timer can be cancelled.
public final class Timer {
    let deadline: Instant
    /// Breaks deadline ties so timers for the same instant fire in the order scheduled.
    let sequence: UInt64
    fileprivate(set) var callback: (() -> Void)?
    fileprivate var inHeap = false
    fileprivate weak var heap: TimerHeap?

    init(deadline: Instant, sequence: UInt64, callback: @escaping () -> Void) {
        self.deadline = deadline
        self.sequence = sequence
        self.callback = callback
    }

    /// Stops the timer from firing. Safe to call any number of times, from
    /// any callback, including the timer's own. Releases the closure at once
    /// so captured objects are freed even if the heap entry lingers.
    public func cancel() {
        guard callback != nil else { return }
        callback = nil
        if inHeap { heap?.noteCancelled() }
    }

    /// True until the timer has fired or been cancelled.
    public var isPending: Bool { callback != nil }

    fileprivate func precedes(_ other: Timer) -> Bool {
        deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
    }

    /// Runs the callback once (no-op if cancelled meanwhile).
    func fire() {
        guard let callback else { return }
        self.callback = nil
        callback()
    }
}

/// A binary min-heap of timers ordered by (deadline, sequence).
///
/// Cancellation is lazy: a cancelled timer stays in the heap and is skipped
/// when it reaches the top, which makes `cancel()` O(1). So that a server
/// that arms and cancels many timeouts cannot grow the heap without bound,
/// the heap is compacted once more than half of it is cancelled.
final class TimerHeap {
    private var items: [Timer] = []
    private var nextSequence: UInt64 = 0
    private(set) var cancelledCount = 0

    /// Timers that will still fire.
    var liveCount: Int { items.count - cancelledCount }

    func schedule(at deadline: Instant, _ callback: @escaping () -> Void) -> Timer {
        let timer = Timer(deadline: deadline, sequence: nextSequence, callback: callback)
        nextSequence &+= 1
        timer.heap = self
        timer.inHeap = true
        items.append(timer)
        siftUp(items.count - 1)
        return timer
    }

    /// The earliest deadline of a live timer, dropping cancelled ones on top.
    func nextDeadline() -> Instant? {
        while let top = items.first {
            if top.isPending { return top.deadline }
            _ = popTop()
        }
        return nil
    }

    /// Removes and returns every live timer due at `now`, in firing order.
    /// The caller fires them after collecting, so a timer scheduled from a
    /// callback for "now" waits for the next loop turn instead of starving I/O.
    func popDue(now: Instant) -> [Timer] {
        var due: [Timer] = []
        while let top = items.first, top.deadline <= now || !top.isPending {
            let timer = popTop()
            if timer.isPending { due.append(timer) }
        }
        return due
    }

    fileprivate func noteCancelled() {
        cancelledCount += 1
        if cancelledCount > 64 && cancelledCount * 2 > items.count {
            compact()
        }
    }

    private func popTop() -> Timer {
        let top = items[0]
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            siftDown(0)
        }
        top.inHeap = false
        if !top.isPending { cancelledCount -= 1 }
        return top
    }

    private func compact() {
        for timer in items where !timer.isPending { timer.inHeap = false }
        items.removeAll { !$0.isPending }
        cancelledCount = 0
        var index = items.count / 2
        while index > 0 {
            index -= 1
            siftDown(index)
        }
    }

    private func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].precedes(items[parent]) else { return }
            items.swapAt(child, parent)
            child = parent
        }
    }

    private func siftDown(_ start: Int) {
        var parent = start
        let count = items.count
        while true {
            let left = 2 * parent + 1
            guard left < count else { return }
            var smallest = left
            let right = left + 1
            if right < count && items[right].precedes(items[left]) { smallest = right }
            guard items[smallest].precedes(items[parent]) else { return }
            items.swapAt(smallest, parent)
            parent = smallest
        }
    }
}

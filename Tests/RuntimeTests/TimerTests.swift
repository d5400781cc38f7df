import Testing
import TestSupport
@testable import Runtime

@Suite struct TimerHeapTests {
    private let base = Instant(nanoseconds: 1_000_000_000)

    @Test func dueTimersComeOutInDeadlineOrder() {
        let heap = TimerHeap()
        var fired: [Int] = []
        for (label, offset) in [(3, 30), (1, 10), (4, 40), (2, 20)] {
            _ = heap.schedule(at: base + .milliseconds(offset)) { fired.append(label) }
        }
        for timer in heap.popDue(now: base + .milliseconds(25)) { timer.fire() }
        #expect(fired == [1, 2])
        #expect(heap.nextDeadline() == base + .milliseconds(30))
        for timer in heap.popDue(now: base + .seconds(1)) { timer.fire() }
        #expect(fired == [1, 2, 3, 4])
        #expect(heap.nextDeadline() == nil)
    }

    @Test func timersWithTheSameDeadlineFireInSchedulingOrder() {
        let heap = TimerHeap()
        var fired: [Int] = []
        for label in 0..<50 {
            _ = heap.schedule(at: base) { fired.append(label) }
        }
        for timer in heap.popDue(now: base) { timer.fire() }
        #expect(fired == Array(0..<50))
    }

    @Test func cancelledTimersNeverFireAndAreSkipped() {
        let heap = TimerHeap()
        var fired: [Int] = []
        let first = heap.schedule(at: base + .milliseconds(1)) { fired.append(1) }
        _ = heap.schedule(at: base + .milliseconds(2)) { fired.append(2) }
        first.cancel()
        first.cancel()
        #expect(!first.isPending)
        #expect(heap.liveCount == 1)
        #expect(heap.nextDeadline() == base + .milliseconds(2))
        for timer in heap.popDue(now: base + .seconds(1)) { timer.fire() }
        #expect(fired == [2])
        #expect(heap.liveCount == 0)
    }

    @Test func manyCancellationsCompactTheHeap() {
        let heap = TimerHeap()
        var fired = 0
        var timers: [Timer] = []
        for index in 0..<10_000 {
            timers.append(heap.schedule(at: base + .milliseconds(Int64(index % 97))) { fired += 1 })
        }
        for (index, timer) in timers.enumerated() where index % 10 != 0 {
            timer.cancel()
        }
        #expect(heap.liveCount == 1_000)
        #expect(heap.cancelledCount < 9_000)  // compaction ran
        for timer in heap.popDue(now: base + .seconds(1)) { timer.fire() }
        #expect(fired == 1_000)
    }
}

@Suite struct EventLoopTimerTests {
    @Test func timersFireInDeadlineOrderOnTheLoop() throws {
        let loop = try EventLoop()
        let start = loop.now
        var fired: [Int] = []
        loop.schedule(at: start + .milliseconds(3)) { fired.append(3); loop.stop() }
        loop.schedule(at: start + .milliseconds(1)) { fired.append(1) }
        loop.schedule(at: start) { fired.append(0) }
        loop.schedule(after: .milliseconds(2)) { fired.append(2) }
        #expect(loop.run(timeout: .seconds(5)))
        #expect(fired == [0, 1, 2, 3])
        #expect(loop.now >= start + .milliseconds(3))
    }

    @Test func cancelledTimerDoesNotFire() throws {
        let loop = try EventLoop()
        var fired: [String] = []
        let cancelled = loop.schedule(after: .milliseconds(1)) { fired.append("cancelled") }
        loop.schedule(after: .zero) { cancelled.cancel() }
        loop.schedule(after: .milliseconds(5)) { fired.append("kept"); loop.stop() }
        #expect(loop.run(timeout: .seconds(5)))
        #expect(fired == ["kept"])
    }

    @Test func timerCanCancelItselfAndScheduleAnother() throws {
        let loop = try EventLoop()
        var count = 0
        var timer: Timer?
        timer = loop.schedule(after: .zero) {
            count += 1
            timer?.cancel()
            loop.schedule(after: .zero) { count += 10; loop.stop() }
        }
        #expect(loop.run(timeout: .seconds(5)))
        #expect(count == 11)
    }

    @Test func runReturnsWhenNothingIsLeftToWaitFor() throws {
        let loop = try EventLoop()
        var ran = false
        loop.execute { ran = true }
        loop.run()
        #expect(ran)
    }

    @Test func stopEndsRunEvenWithPendingTimers() throws {
        let loop = try EventLoop()
        var late = false
        loop.schedule(after: .zero) { loop.stop() }
        let pending = loop.schedule(after: .seconds(60)) { late = true }
        #expect(loop.run(timeout: .seconds(5)))
        #expect(!late)
        pending.cancel()
    }

    @Test func instantArithmeticSaturates() {
        let instant = Instant(nanoseconds: 5)
        #expect((instant + .seconds(Int64.max)).nanoseconds == Int64.max)
        #expect((instant + .milliseconds(1)) - instant == .milliseconds(1))
        #expect(instant - .nanoseconds(5) == Instant(nanoseconds: 0))
    }
}

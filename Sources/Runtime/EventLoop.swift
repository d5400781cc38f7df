import Glibc
import CShims

/// Something the loop calls back when its file descriptor has events.
protocol EventHandler: AnyObject {
    /// `events` is the raw epoll event mask (EPOLLIN, EPOLLOUT, EPOLLERR...).
    func handleEvent(_ events: UInt32)
}

/// A single-threaded epoll event loop: the only place chatcli waits for I/O.
///
/// The loop owns non-blocking sockets (``TCPListener``, ``TCPConnection``,
/// ``UDPSocket``), a timer heap, a signalfd and plain readability watches
/// (stdin). Everything runs on the thread that calls ``run()``, through
/// callbacks; none of the types are `Sendable` and none may be touched from
/// another thread.
///
/// epoll is used level-triggered: a handler that leaves data unread is
/// simply called again on the next turn, which keeps fairness between
/// connections without per-connection bookkeeping. Callbacks run one at a
/// time; closing any object from inside any callback is safe.
///
/// ``run()`` returns after ``stop()``, or when nothing is left that could
/// ever call back: no registered descriptor, no pending timer, no queued task.
public final class EventLoop {
    private let epollFD: Int32
    private var slots: [Slot] = []
    private var registeredCount = 0
    private var nextGeneration: UInt32 = 0
    private let eventCapacity = 1024
    private let events: UnsafeMutablePointer<epoll_event>
    private let timers = TimerHeap()
    private var tasks: [() -> Void] = []
    private var alwaysReady: [Watch] = []
    private var stopRequested = false
    /// Whether the kernel has epoll_pwait2 (off after ENOSYS).
    private var nanosecondTimeouts = true
    var signals: SignalSource?
    /// Bytes every ``TCPConnection`` of this loop holds unsent: what peers
    /// that do not read are costing, for a server's budget.
    public internal(set) var bufferedOutputBytes = 0

    /// Shared receive buffer: every read goes here first, then is copied out
    /// at its exact size, so idle connections hold no buffer at all.
    let readBuffer: UnsafeMutableRawBufferPointer
    static let readBufferSize = 64 * 1024
    /// Receive slots for one `recvmmsg` (UDPSocket): `datagramSlotCount`
    /// slots of `readBufferSize` bytes. Pages never written stay unbacked.
    let datagramSlots: UnsafeMutableRawBufferPointer
    static let datagramSlotCount = 16

    private struct Slot {
        var handler: EventHandler?
        var generation: UInt32 = 0
    }

    public init() throws(RuntimeError) {
        let fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { throw .lastErrno("epoll_create1") }
        epollFD = fd
        events = .allocate(capacity: eventCapacity)
        readBuffer = .allocate(byteCount: Self.readBufferSize, alignment: 16)
        datagramSlots = .allocate(byteCount: Self.readBufferSize * Self.datagramSlotCount, alignment: 16)
        // A peer closing mid-write must be an error return, not a dead process.
        signal(SIGPIPE, SIG_IGN)
        Self.raiseOpenFileLimit()
    }

    deinit {
        Glibc.close(epollFD)
        events.deallocate()
        readBuffer.deallocate()
        datagramSlots.deallocate()
    }

    /// The monotonic clock, read fresh on every access.
    public var now: Instant { monotonicNow() }

    // MARK: - Running

    /// Runs callbacks until ``stop()`` is called or nothing is left to wait for.
    ///
    /// A ``stop()`` that came before `run()` (a completion that failed
    /// before the loop started) makes it return at once instead of being
    /// forgotten; each stop ends one run, so the loop can be run again.
    public func run() {
        defer { stopRequested = false }
        while !stopRequested {
            runTasks()
            fireDueTimers()
            runTasks()
            if stopRequested { break }
            let timeout: Int32
            var fine: timespec?
            if !tasks.isEmpty || !alwaysReady.isEmpty {
                timeout = 0
            } else if let deadline = timers.nextDeadline() {
                timeout = Self.milliseconds(until: deadline)
                // To the microsecond where the kernel can (epoll_pwait2, Linux
                // 5.11): SCTP's pacer asks for bursts every few hundred µs,
                // and milliseconds rounded up held it to about 60 MB/s.
                if timeout > 0, nanosecondTimeouts {
                    let remaining = max(0, deadline.nanoseconds.addingClamped(-monotonicNow().nanoseconds))
                    fine = timespec(tv_sec: Int(remaining / 1_000_000_000), tv_nsec: Int(remaining % 1_000_000_000))
                }
            } else if registeredCount == 0 {
                return
            } else {
                timeout = -1
            }
            let count: Int32
            if var ts = fine {
                count = epoll_pwait2(epollFD, events, Int32(eventCapacity), &ts, nil)
                if count < 0, Glibc.errno == ENOSYS {
                    nanosecondTimeouts = false
                    continue
                }
            } else {
                count = epoll_wait(epollFD, events, Int32(eventCapacity), timeout)
            }
            if count < 0 {
                if Glibc.errno == EINTR { continue }
                return  // EBADF/EINVAL: the loop itself is broken; nothing sane to retry.
            }
            dispatch(count: Int(count))
            for watch in alwaysReady where watch.isActive { watch.fire() }
        }
    }

    /// Makes ``run()`` return after the current callback, or, if the loop
    /// is not running, the next ``run()`` return at once.
    public func stop() {
        stopRequested = true
    }

    /// Runs `fn` on the loop's next turn, after the current callback returns.
    /// Used to report completions without re-entering the caller.
    public func execute(_ fn: @escaping () -> Void) {
        tasks.append(fn)
    }

    // MARK: - Timers

    /// Calls `fn` once at `deadline` (or on the next turn if it is past).
    @discardableResult
    public func schedule(at deadline: Instant, _ fn: @escaping () -> Void) -> Timer {
        timers.schedule(at: deadline, fn)
    }

    /// Calls `fn` once after `delay`.
    @discardableResult
    public func schedule(after delay: Duration, _ fn: @escaping () -> Void) -> Timer {
        timers.schedule(at: now + delay, fn)
    }

    // MARK: - Registration (internal)

    func register(_ fd: Int32, events mask: UInt32, handler: EventHandler) throws(RuntimeError) {
        guard fd >= 0 else { throw .system(EBADF, "epoll_ctl") }
        let index = Int(fd)
        if index >= slots.count {
            slots.append(contentsOf: repeatElement(Slot(), count: index - slots.count + 1))
        }
        nextGeneration &+= 1
        var event = epoll_event()
        event.events = mask
        event.data.u64 = UInt64(nextGeneration) << 32 | UInt64(UInt32(bitPattern: fd))
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else {
            throw .lastErrno("epoll_ctl")
        }
        slots[index] = Slot(handler: handler, generation: nextGeneration)
        registeredCount += 1
    }

    func modify(_ fd: Int32, events mask: UInt32) {
        let index = Int(fd)
        guard index >= 0, index < slots.count, slots[index].handler != nil else { return }
        var event = epoll_event()
        event.events = mask
        event.data.u64 = UInt64(slots[index].generation) << 32 | UInt64(UInt32(bitPattern: fd))
        _ = epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
    }

    /// Forgets `fd`. Must be called before closing it, so that stale events
    /// already fetched in this turn are dropped by the generation check.
    func deregister(_ fd: Int32) {
        let index = Int(fd)
        guard index >= 0, index < slots.count, slots[index].handler != nil else { return }
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
        slots[index].handler = nil
        registeredCount -= 1
    }

    func addAlwaysReady(_ watch: Watch) {
        alwaysReady.append(watch)
        registeredCount += 1
    }

    func removeAlwaysReady(_ watch: Watch) {
        let before = alwaysReady.count
        alwaysReady.removeAll { $0 === watch }
        registeredCount -= before - alwaysReady.count
    }

    // MARK: - Internals

    private func dispatch(count: Int) {
        for i in 0..<count {
            let event = events[i]
            let data = event.data.u64
            let index = Int(UInt32(truncatingIfNeeded: data))
            let generation = UInt32(truncatingIfNeeded: data >> 32)
            guard index < slots.count, slots[index].generation == generation,
                  let handler = slots[index].handler else { continue }
            // The handler may deregister (and drop the last reference to)
            // itself from inside its own callback.
            withExtendedLifetime(handler) { handler.handleEvent(event.events) }
        }
    }

    private func runTasks() {
        while !tasks.isEmpty {
            let batch = tasks
            tasks.removeAll()
            for task in batch { task() }
        }
    }

    private func fireDueTimers() {
        let due = timers.popDue(now: now)
        for timer in due { timer.fire() }
    }

    private static func milliseconds(until deadline: Instant) -> Int32 {
        let remaining = deadline.nanoseconds.addingClamped(-monotonicNow().nanoseconds)
        if remaining <= 0 { return 0 }
        // Round up: waking a hair early would just spin one more turn.
        let ms = (remaining + 999_999) / 1_000_000
        return Int32(clamping: ms)
    }

    /// A server holding 10,000 connections needs more than the usual soft
    /// limit of 1024 descriptors; the hard limit is ours to take.
    private static func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        // RLIM_INFINITY (all ones) cannot be the soft limit for descriptors.
        let target = limit.rlim_max == rlim_t.max ? rlim_t(1 << 20) : limit.rlim_max
        guard limit.rlim_cur < target else { return }
        limit.rlim_cur = target
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}

/// epoll masks as UInt32, since Glibc imports them as enum cases.
enum Epoll {
    static let `in` = UInt32(EPOLLIN.rawValue)
    static let out = UInt32(EPOLLOUT.rawValue)
    static let err = UInt32(EPOLLERR.rawValue)
    static let hup = UInt32(EPOLLHUP.rawValue)
    static let rdhup = UInt32(EPOLLRDHUP.rawValue)
}

import Glibc

/// A point on the monotonic clock (`CLOCK_MONOTONIC`), in nanoseconds.
///
/// Monotonic time never jumps with NTP or the user changing the wall clock,
/// so it is the only clock timers and protocol timeouts should use. The
/// origin is arbitrary (boot time on Linux); only differences are meaningful.
public struct Instant: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    public static func < (lhs: Instant, rhs: Instant) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    public static func + (lhs: Instant, rhs: Duration) -> Instant {
        Instant(nanoseconds: lhs.nanoseconds.addingClamped(rhs.clampedNanoseconds))
    }

    public static func - (lhs: Instant, rhs: Duration) -> Instant {
        Instant(nanoseconds: lhs.nanoseconds.addingClamped(-rhs.clampedNanoseconds))
    }

    public static func - (lhs: Instant, rhs: Instant) -> Duration {
        .nanoseconds(lhs.nanoseconds.addingClamped(-rhs.nanoseconds))
    }

    public var description: String { "Instant(\(nanoseconds)ns)" }

    /// The sans-IO cores keep time as a `Duration` since the clock's origin.
    public init(_ duration: Duration) {
        self.init(nanoseconds: duration.clampedNanoseconds)
    }

    public var duration: Duration { .nanoseconds(nanoseconds) }
}

/// Reads `CLOCK_MONOTONIC`. Cheap (vDSO, no system call).
public func monotonicNow() -> Instant {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Instant(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
}

/// Seconds since the UNIX epoch from the wall clock (`CLOCK_REALTIME`): for
/// timestamps shown to people or stored, never for measuring intervals.
public func wallClockSeconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec)
}

/// Milliseconds since the UNIX epoch from the wall clock.
public func wallClockMilliseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
}

extension Duration {
    /// Whole nanoseconds, saturating instead of trapping on absurd durations
    /// (a caller passing `.seconds(Int64.max)` means "never", not "crash").
    public var clampedNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? Int64.min : Int64.max }
        return scaled.addingClamped(attoseconds / 1_000_000_000)
    }
}

extension Int64 {
    func addingClamped(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        if overflow { return other < 0 ? Int64.min : Int64.max }
        return sum
    }
}

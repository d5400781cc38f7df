/// Limits `accept` misses (404s) per client address, so the 10^6 join-code
/// space cannot be swept.
///
/// A sliding-window log: each address keeps the times of its last `limit`
/// misses. An address is limited while `limit` misses fall inside the last
/// `window`; it is free again `window` after the oldest of them, which is the
/// `Retry-After` it is given. Unlike a fixed window, a burst across a window
/// boundary cannot get twice the limit. Memory is at most `limit` times per
/// address, and `sweep` forgets addresses with no miss inside the window.
public struct AcceptRateLimiter: Sendable {
    public var limit: Int
    public var window: Int64  // seconds

    private var misses: [String: [UnixTime]] = [:]

    public init(limit: Int = 10, windowSeconds: Int64 = 60) {
        self.limit = max(1, limit)
        self.window = max(1, windowSeconds)
    }

    /// Seconds the address must wait before `accept` is answered again,
    /// or nil when it is not limited.
    public func retryAfter(address: String, now: UnixTime) -> Int64? {
        guard let times = misses[address], times.count >= limit, let oldest = times.first else { return nil }
        let freeAt = oldest.adding(seconds: window)
        guard now < freeAt else { return nil }
        return max(1, now.secondsUntil(freeAt))
    }

    public mutating func recordMiss(address: String, now: UnixTime) {
        var times = misses[address] ?? []
        let horizon = now.adding(seconds: -window)
        times.removeAll { $0 <= horizon }
        times.append(now)
        if times.count > limit { times.removeFirst(times.count - limit) }
        misses[address] = times
    }

    /// Forgets addresses whose misses are all outside the window.
    public mutating func sweep(now: UnixTime) {
        let horizon = now.adding(seconds: -window)
        misses = misses.filter { _, times in times.last.map { $0 > horizon } ?? false }
    }

    public var trackedAddressCount: Int { misses.count }
}

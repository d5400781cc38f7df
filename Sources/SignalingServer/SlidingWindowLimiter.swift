/// Counts events per client in a sliding window: `accept` misses (404s),
/// so the 10^6 join-code space cannot be swept, and room creations, so one
/// client cannot hold the code space (see ``ClientLimits``).
///
/// A sliding-window log: each client keeps the times of its last `limit`
/// events. A client is limited while `limit` events fall inside the last
/// `window`; it is free again `window` after the oldest of them, which is
/// the `Retry-After` it is given. Unlike a fixed window, a burst across a
/// window boundary cannot get twice the limit. Clients are keys from
/// ``ClientAddress`` (an IPv4 address or an IPv6 /64).
///
/// Memory is bounded: at most `limit` times per client and `maxClients`
/// clients; `sweep` forgets clients with no event inside the window. While
/// the table is full of clients still inside their window, a client it
/// does not know is limited for one window (a flood from many networks
/// costs bounded memory; it is refused rather than remembered).
public struct SlidingWindowLimiter: Sendable {
    public var limit: Int
    public var window: Int64  // seconds
    public var maxClients: Int

    private var events: [String: [UnixTime]] = [:]

    public init(limit: Int = 10, windowSeconds: Int64 = 60, maxClients: Int = 100_000) {
        self.limit = max(1, limit)
        self.window = max(1, windowSeconds)
        self.maxClients = max(1, maxClients)
    }

    /// Seconds the client must wait before it is answered again, or nil
    /// when it is not limited.
    public func retryAfter(client: String, now: UnixTime) -> Int64? {
        guard let times = events[client] else { return events.count >= maxClients ? window : nil }
        guard times.count >= limit, let oldest = times.first else { return nil }
        let freeAt = oldest.adding(seconds: window)
        guard now < freeAt else { return nil }
        return max(1, now.secondsUntil(freeAt))
    }

    public mutating func record(client: String, now: UnixTime) {
        if events[client] == nil && events.count >= maxClients {
            sweep(now: now)
            guard events.count < maxClients else { return }
        }
        var times = events[client] ?? []
        let horizon = now.adding(seconds: -window)
        // Oldest first: only the expired front is looked at (a raised limit keeps this cheap).
        let expired = times.prefix { $0 <= horizon }.count
        if expired > 0 { times.removeFirst(expired) }
        times.append(now)
        if times.count > limit { times.removeFirst(times.count - limit) }
        events[client] = times
    }

    /// Forgets clients whose events are all outside the window.
    public mutating func sweep(now: UnixTime) {
        let horizon = now.adding(seconds: -window)
        events = events.filter { _, times in times.last.map { $0 > horizon } ?? false }
    }

    public var trackedClientCount: Int { events.count }
}

import STUN

/// The state of the one allocation a client holds (RFC 8656 §6–§7).
struct Allocation: Sendable {
    enum State: Hashable, Sendable {
        case allocating
        case allocated
        /// Refresh with LIFETIME 0 sent (`deallocate()`).
        case deallocating
        /// Deallocated or failed: nothing more happens.
        case closed
    }

    /// What the server grants when the request names no lifetime (§7.2).
    static let defaultLifetime: UInt32 = 600

    var state: State = .allocating
    var relayed: STUNAddress?
    var mapped: STUNAddress?
    var lifetime: Duration = .zero
    /// When to send the next Refresh; `nil` while one is in flight or
    /// none is due.
    var refreshAt: Duration?

    var isActive: Bool { state == .allocating || state == .allocated }

    /// Schedules the next Refresh after the server granted `seconds`.
    mutating func granted(seconds: UInt32, now: Duration) {
        lifetime = .seconds(seconds)
        refreshAt = now + Self.refreshDelay(lifetime: seconds)
    }

    /// A minute before expiry leaves room for a lost UDP request to be
    /// retransmitted; a lifetime too short for that is refreshed halfway.
    static func refreshDelay(lifetime seconds: UInt32) -> Duration {
        seconds > 120 ? .seconds(seconds - 60) : .seconds(seconds) / 2
    }
}

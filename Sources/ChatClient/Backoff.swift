/// Exponential backoff with full jitter (the AWS architecture blog's
/// "full jitter"): the n-th delay is uniform in [0, min(cap, base·2ⁿ)], so
/// many clients that lost the same server do not come back in lockstep.
public struct Backoff: Sendable {
    public let base: Duration
    public let cap: Duration
    public private(set) var attempt = 0

    public init(base: Duration = .milliseconds(500), cap: Duration = .seconds(30)) {
        self.base = base
        self.cap = cap
    }

    /// The ceiling of the next delay (before jitter).
    public var ceiling: Duration {
        let factor = 1 << min(attempt, 20)
        let grown = base * factor
        return grown > cap ? cap : grown
    }

    public mutating func next(using rng: inout some RandomNumberGenerator) -> Duration {
        let limit = ceiling.milliseconds
        attempt += 1
        return .milliseconds(Int64.random(in: 0...max(limit, 0), using: &rng))
    }

    public mutating func reset() { attempt = 0 }
}

extension Duration {
    /// Whole milliseconds, truncated.
    public var milliseconds: Int64 {
        let (s, atto) = components
        return s * 1000 + atto / 1_000_000_000_000_000
    }
}

/// The signaling heartbeat: a WebSocket ping every `interval`; if no pong
/// arrives within `timeout` of a ping, the socket is considered dead.
/// Sans-IO: the caller feeds time and pongs and acts on what `poll` says.
public struct Heartbeat: Sendable {
    public enum Action: Equatable, Sendable {
        case sendPing
        case timedOut
    }

    public let interval: Duration
    public let timeout: Duration
    private var nextPing: Duration
    private var awaitingPongSince: Duration?
    /// An answer is due by then (`probe`), sooner than `timeout`.
    private var probeDeadline: Duration?

    /// `now` is time since an arbitrary origin, as the runtime's clock gives it.
    public init(now: Duration, interval: Duration = .seconds(25), timeout: Duration = .seconds(10)) {
        self.interval = interval
        self.timeout = timeout
        self.nextPing = now + interval
    }

    /// When `poll` next has something to do.
    public var deadline: Duration {
        var next = nextPing
        if let since = awaitingPongSince { next = min(next, since + timeout) }
        if let probeDeadline { next = min(next, probeDeadline) }
        return next
    }

    public mutating func poll(now: Duration) -> Action? {
        if let probeDeadline, now >= probeDeadline { return .timedOut }
        if let since = awaitingPongSince, now >= since + timeout { return .timedOut }
        if now >= nextPing {
            nextPing = now + interval
            if awaitingPongSince == nil { awaitingPongSince = now }
            return .sendPing
        }
        return nil
    }

    /// Any pong (or any traffic proving the peer alive) clears the wait.
    public mutating func pongReceived() {
        awaitingPongSince = nil
        probeDeadline = nil
    }

    /// A ping at once, to be answered within `timeout`: after a network
    /// change the socket may be dead without knowing it.
    public mutating func probe(now: Duration, timeout: Duration) {
        nextPing = now
        probeDeadline = min(probeDeadline ?? now + timeout, now + timeout)
    }
}

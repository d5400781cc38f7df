/// The session's deadlines, one per kind, on the caller's clock.
enum SessionTimer: Hashable, CaseIterable {
    /// A REST retry or the next `join_room` (see `ChatSession.Retry`).
    case retry
    /// The next ICE restart attempt (the offerer, while the path is down).
    case restart
    /// Messages held for the peer's `hello` are shown anyway.
    case holdRelease
    /// A signal asked to leave: exit by now whatever the network does.
    case forcedExit
    /// The peer never answered the PAKE (it does not know it, or went silent).
    case pakeDeadline
    /// The peer has said nothing while the connection is set up (ChatSession+Silence).
    case peerSilence
    /// The server said the peer left; its last acknowledgements may still be on the way (ChatSession+Room).
    case peerLeftGrace
}

struct SessionTimers {
    private var deadlines: [SessionTimer: Duration] = [:]

    mutating func set(_ timer: SessionTimer, at deadline: Duration) { deadlines[timer] = deadline }
    mutating func cancel(_ timer: SessionTimer) { deadlines[timer] = nil }
    mutating func cancelAll() { deadlines = [:] }
    func isSet(_ timer: SessionTimer) -> Bool { deadlines[timer] != nil }
    func deadline(_ timer: SessionTimer) -> Duration? { deadlines[timer] }

    var next: Duration? { deadlines.values.min() }

    /// The earliest timer due at `now`, removed (in `CaseIterable` order on ties).
    mutating func popDue(now: Duration) -> SessionTimer? {
        let due = SessionTimer.allCases.compactMap { timer in deadlines[timer].flatMap { $0 <= now ? (timer, $0) : nil } }
        guard let first = due.min(by: { $0.1 < $1.1 })?.0 else { return nil }
        deadlines[first] = nil
        return first
    }
}

/// When a handshake flight is sent again (RFC 6347 §4.2.4), on the caller's
/// clock: the first retransmission `initial` after the flight, then doubling
/// up to `maximum`, and the handshake given up after `limit` retransmissions
/// of one flight. Starts at 150 ms instead of RFC 6347's 1 s, which helps on
/// lossy links; 150 ms + 300 ms + … + 4 s × 8 ≈ 37 s in all.
struct RetransmissionSchedule {
    static let initial: Duration = .milliseconds(150)
    static let maximum: Duration = .seconds(4)
    /// OpenSSL gives up after 12 (DTLS1_TMO_ALERT_COUNT); we stop first.
    static let limit = 12

    /// When the current flight goes out again; nil when none is outstanding.
    private(set) var deadline: Duration?
    private var interval = initial
    private(set) var retransmissions = 0

    /// A new flight went out at `now`.
    mutating func flightSent(now: Duration) {
        interval = Self.initial
        retransmissions = 0
        deadline = now + interval
    }

    /// The flight was sent again at `now`: back off.
    mutating func retransmitted(now: Duration) {
        retransmissions += 1
        interval = min(interval * 2, Self.maximum)
        deadline = now + interval
    }

    /// The peer answered the flight (or the handshake ended).
    mutating func stop() { deadline = nil }

    var isExhausted: Bool { retransmissions >= Self.limit }
}

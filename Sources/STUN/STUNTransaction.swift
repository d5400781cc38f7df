/// Retransmission parameters of a client transaction (RFC 8489 §6.2.1).
public struct STUNRetransmissionPolicy: Hashable, Sendable {
    /// First retransmission timeout; doubled after every transmission.
    public var initialRTO: Duration
    /// Rc: total number of transmissions, the first included.
    public var maxTransmissions: Int
    /// Rm: after the last transmission, wait `Rm × initialRTO` for a response.
    public var lastWaitMultiplier: Int
    /// Optional ceiling on the doubled RTO (RFC 8489 allows one).
    public var maxRTO: Duration?

    public init(
        initialRTO: Duration = .milliseconds(500), maxTransmissions: Int = 7,
        lastWaitMultiplier: Int = 16, maxRTO: Duration? = nil
    ) {
        self.initialRTO = initialRTO
        self.maxTransmissions = max(1, maxTransmissions)
        self.lastWaitMultiplier = max(1, lastWaitMultiplier)
        self.maxRTO = maxRTO
    }

    /// UDP defaults: sends at 0, 0.5, 1.5, 3.5, 7.5, 15.5 and 31.5 s, then
    /// times out at 39.5 s.
    public static let unreliable = STUNRetransmissionPolicy()

    /// TCP/TLS: one transmission and the 39.5 s transaction timeout Ti
    /// (§6.2.2), since the transport itself retransmits.
    public static let reliable = STUNRetransmissionPolicy(
        initialRTO: .milliseconds(39_500), maxTransmissions: 1, lastWaitMultiplier: 1)
}

/// One STUN client transaction (RFC 8489 §6.2.1), sans-IO.
///
/// Time is a `Duration` since any fixed origin the caller picks (a
/// monotonic clock reading); the transaction only compares and adds. Drive
/// it with `pollTransmit()`, `pollTimeout()` / `handleTimeout(now:)` and
/// `handleResponse(_:)`.
public struct STUNTransaction: Sendable {
    public enum State: Hashable, Sendable {
        case inProgress
        case completed(STUNMessage)
        case timedOut
    }

    public let id: STUNTransactionID
    /// The encoded request, sent unchanged on every retransmission so that
    /// a server sees the same transaction (§6.2.1).
    public let request: [UInt8]
    public let policy: STUNRetransmissionPolicy
    public private(set) var state: State = .inProgress
    /// Transmissions handed out or queued so far.
    public private(set) var transmissions = 1

    private var rto: Duration
    private var deadline: Duration
    private var transmitQueued = true

    /// Starts the transaction: the first transmission is due at once.
    public init(id: STUNTransactionID, request: [UInt8], policy: STUNRetransmissionPolicy = .unreliable, now: Duration) {
        self.id = id
        self.request = request
        self.policy = policy
        self.rto = policy.initialRTO
        self.deadline = now
        self.deadline = nextDeadline(after: now)
    }

    public var isFinished: Bool { state != .inProgress }

    /// The bytes to send now, if a (re)transmission is due.
    public mutating func pollTransmit() -> [UInt8]? {
        guard transmitQueued, state == .inProgress else { return nil }
        transmitQueued = false
        return request
    }

    /// When `handleTimeout(now:)` must next be called; `nil` once finished.
    public func pollTimeout() -> Duration? {
        state == .inProgress ? deadline : nil
    }

    public mutating func handleTimeout(now: Duration) {
        guard state == .inProgress, now >= deadline else { return }
        guard transmissions < policy.maxTransmissions else {
            state = .timedOut
            return
        }
        transmissions += 1
        transmitQueued = true
        rto = rto * 2
        if let cap = policy.maxRTO, rto > cap { rto = cap }
        deadline = nextDeadline(after: now)
    }

    /// Completes the transaction if `response` is a success or error
    /// response with this transaction's id; returns whether it matched.
    @discardableResult
    public mutating func handleResponse(_ response: STUNMessage) -> Bool {
        guard state == .inProgress, response.transactionID == id, response.type.messageClass.isResponse
        else { return false }
        state = .completed(response)
        return true
    }

    /// After the last transmission the wait is Rm × the initial RTO, not
    /// the doubled one (§6.2.1: 31.5 s + 16 × 500 ms = 39.5 s).
    private func nextDeadline(after now: Duration) -> Duration {
        if transmissions >= policy.maxTransmissions {
            return now + policy.initialRTO * policy.lastWaitMultiplier
        }
        return now + rto
    }
}

import Wire

/// Runs many STUN client transactions at once and matches responses to
/// them by transaction id (RFC 8489 §6.2, §6.3.3), sans-IO.
///
/// Feed received datagrams to `handleInput`, call `handleTimeout(now:)` at
/// `pollTimeout()`, and drain `pollTransmit()` and `pollEvent()` after
/// every call.
public struct STUNClient: Sendable {
    /// A datagram to send.
    public struct Transmit: Hashable, Sendable {
        public let transactionID: STUNTransactionID
        public let destination: STUNAddress
        public let bytes: [UInt8]
    }

    /// A response matched to its transaction.
    public struct Response: Hashable, Sendable {
        public let transactionID: STUNTransactionID
        public let message: STUNMessage
        /// The datagram as received, for integrity checks the caller makes.
        public let datagram: [UInt8]
        public let source: STUNAddress
    }

    public enum Event: Hashable, Sendable {
        case response(Response)
        case timeout(STUNTransactionID)
    }

    private struct Entry: Sendable {
        var transaction: STUNTransaction
        let destination: STUNAddress
        let key: STUNKey?
    }

    public var policy: STUNRetransmissionPolicy
    private var entries: [STUNTransactionID: Entry] = [:]
    /// Start order, so transmits and events come out deterministically.
    private var order: [STUNTransactionID] = []
    private var transmits = Deque<Transmit>()
    private var events = Deque<Event>()

    public init(policy: STUNRetransmissionPolicy = .unreliable) {
        self.policy = policy
    }

    public var pendingTransactions: Int { entries.count }

    /// Starts a transaction for `request` (whose transaction id must be
    /// fresh). With `integrity`, MESSAGE-INTEGRITY is added and responses
    /// are authenticated with the same key: a success response without a
    /// valid MAC, or any response with a wrong one, is dropped as if never
    /// received (§9.1.4, §9.2.5). Error responses without a MAC still get
    /// through, because 400/401/438 answers to bad credentials carry none.
    public mutating func start(
        _ request: STUNMessage, to destination: STUNAddress, now: Duration,
        integrity: STUNKey? = nil, fingerprint: Bool = true
    ) {
        let bytes = request.encoded(integrity: integrity, fingerprint: fingerprint)
        let transaction = STUNTransaction(id: request.transactionID, request: bytes, policy: policy, now: now)
        if entries[request.transactionID] == nil { order.append(request.transactionID) }
        entries[request.transactionID] = Entry(transaction: transaction, destination: destination, key: integrity)
        collectTransmits()
    }

    /// Starts a Binding request with a random transaction id.
    @discardableResult
    public mutating func startBinding(
        to destination: STUNAddress, attributes: [STUNAttribute] = [], now: Duration,
        using generator: inout some RandomNumberGenerator, integrity: STUNKey? = nil
    ) -> STUNTransactionID {
        var id = STUNTransactionID.random(using: &generator)
        while entries[id] != nil { id = STUNTransactionID.random(using: &generator) }
        start(STUNMessage(type: .bindingRequest, transactionID: id, attributes: attributes),
              to: destination, now: now, integrity: integrity)
        return id
    }

    /// Forgets a transaction without an event.
    public mutating func cancel(_ id: STUNTransactionID) {
        entries[id] = nil
        order.removeAll { $0 == id }
        transmits.removeAll { $0.transactionID == id }
    }

    /// Offers a received datagram. Returns `true` when it was a response to
    /// one of our transactions (and so should not go to anyone else).
    @discardableResult
    public mutating func handleInput(_ datagram: [UInt8], from source: STUNAddress, now: Duration) -> Bool {
        guard let message = try? STUNMessage.decode(datagram), message.type.messageClass.isResponse,
              var entry = entries[message.transactionID]
        else { return false }
        if STUNMessage.verifyFingerprint(of: datagram) == .invalid { return false }
        if let key = entry.key {
            switch STUNMessage.verifyIntegrity(of: datagram, key: key) {
            case .valid: break
            case .invalid: return true
            case .absent: if message.type.messageClass == .successResponse { return true }
            }
        }
        guard entry.transaction.handleResponse(message) else { return false }
        entries[message.transactionID] = entry
        finish(message.transactionID)
        events.append(.response(Response(
            transactionID: message.transactionID, message: message, datagram: datagram, source: source)))
        return true
    }

    public mutating func handleTimeout(now: Duration) {
        for id in order {
            guard var entry = entries[id] else { continue }
            entry.transaction.handleTimeout(now: now)
            entries[id] = entry
            if entry.transaction.state == .timedOut {
                finish(id)
                events.append(.timeout(id))
            }
        }
        collectTransmits()
    }

    /// The earliest deadline of any transaction in progress.
    public func pollTimeout() -> Duration? {
        entries.values.compactMap { $0.transaction.pollTimeout() }.min()
    }

    public mutating func pollTransmit() -> Transmit? {
        transmits.popFirst()
    }

    public mutating func pollEvent() -> Event? {
        events.popFirst()
    }

    private mutating func finish(_ id: STUNTransactionID) {
        entries[id] = nil
        order.removeAll { $0 == id }
    }

    private mutating func collectTransmits() {
        for id in order {
            guard var entry = entries[id], let bytes = entry.transaction.pollTransmit() else { continue }
            entries[id] = entry
            transmits.append(Transmit(transactionID: id, destination: entry.destination, bytes: bytes))
        }
    }
}

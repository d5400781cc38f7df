/// The sender's half of delivery: every message typed stays here, numbered
/// in this process's sequence (`epoch`), until the peer acknowledged it —
/// by a `ctl` ack (chatcli peers), or else by SCTP's cumulative ack on the
/// connection it went out on. Each new connection (a resumed peer is a new
/// process, hence a new SCTP association) sends everything still here
/// again, in order, so nothing typed while the peer was away, or in flight
/// when it crashed, is lost. Sans-IO: the session hands out the texts.
/// Messages live in memory only, never on disk.
public struct Outbox: Sendable {
    struct Entry: Sendable {
        let seq: Int
        let text: String
        /// The connection it last went out on, and its index among the chat
        /// messages sent there (for SCTP-level acknowledgement).
        var connection: Int?
        var position = 0
    }

    public let epoch: String
    private(set) var entries: [Entry] = []
    private var nextSeq = 1
    /// The current connection: its number, how many chat messages went out
    /// on it, and the sequence number its first one had.
    private(set) var connection = 0
    private var sentOnConnection = 0
    private(set) var connectionBase = 1
    private var open = false

    public init(epoch: String) { self.epoch = epoch }

    /// Messages typed that the peer has not acknowledged yet.
    public var undelivered: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }
    /// The memory those messages hold: their UTF-8 bytes plus a fixed
    /// `entryOverhead` each (a script's one-byte lines cost more than a byte).
    public private(set) var bytes = 0
    static let entryOverhead = 64

    public mutating func append(_ text: String) {
        entries.append(Entry(seq: nextSeq, text: text))
        bytes += Self.cost(text)
        nextSeq += 1
    }

    private static func cost(_ text: String) -> Int { text.utf8.count + entryOverhead }

    private mutating func remove(where acknowledged: (Entry) -> Bool) -> Int {
        let before = entries.count
        for entry in entries where acknowledged(entry) { bytes -= Self.cost(entry.text) }
        entries.removeAll(where: acknowledged)
        return before - entries.count
    }

    /// A new connection opened: everything unacknowledged goes out again,
    /// from the oldest. Returns the `hello` for it (its `next`).
    public mutating func connectionOpened() -> DeliveryMessage {
        connection += 1
        sentOnConnection = 0
        connectionBase = entries.first?.seq ?? nextSeq
        open = true
        for i in entries.indices { entries[i].connection = nil }
        return .hello(epoch: epoch, next: connectionBase)
    }

    public mutating func connectionClosed() { open = false }

    /// The texts to send now, in order; call `sent()` for each one handed to the connection.
    public var unsent: [String] {
        guard open else { return [] }
        return entries.lazy.filter { $0.connection == nil }.map(\.text)
    }

    /// The oldest unsent message went out on the current connection.
    public mutating func sent() {
        guard open, let i = entries.firstIndex(where: { $0.connection == nil }) else { return }
        entries[i].connection = connection
        entries[i].position = sentOnConnection
        sentOnConnection += 1
    }

    /// A `ctl` ack: everything of ours up to `seq` is on the peer's screen.
    @discardableResult
    public mutating func acknowledge(epoch: String, seq: Int) -> Int {
        guard epoch == self.epoch else { return 0 }
        return remove { $0.seq <= seq }
    }

    /// SCTP acknowledged the first `count` chat messages of the current
    /// connection: for a peer without `ctl` acks that is delivery.
    @discardableResult
    public mutating func acknowledgeTransport(count: Int) -> Int {
        let connection = self.connection
        return remove { $0.connection == connection && $0.position < count }
    }
}

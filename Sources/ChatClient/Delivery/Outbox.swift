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
    /// Oldest first, with consecutive `seq`s: the live ones are
    /// `entries[head...]`. Acknowledgements remove a prefix, so they move
    /// `head` (the array is compacted once half of it is dead) instead of
    /// scanning every entry: a script piping into a group keeps thousands
    /// here per pair, and each ack, sent or flush scanned them all.
    private var entries: [Entry] = []
    private var head = 0
    /// Entries before this index went out on the current connection (they
    /// are always a prefix: each connection sends them again from the
    /// oldest, in order); the rest wait.
    private var firstUnsent = 0
    private var nextSeq = 1
    /// The current connection: its number, how many chat messages went out
    /// on it, and the sequence number its first one had.
    private(set) var connection = 0
    private var sentOnConnection = 0
    private(set) var connectionBase = 1
    private var open = false

    public init(epoch: String) { self.epoch = epoch }

    /// Messages typed that the peer has not acknowledged yet.
    public var undelivered: Int { entries.count - head }
    public var isEmpty: Bool { head == entries.count }
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

    /// Drops the oldest `count` live entries.
    private mutating func removeOldest(_ count: Int) -> Int {
        guard count > 0 else { return 0 }
        for entry in entries[head..<head + count] { bytes -= Self.cost(entry.text) }
        head += count
        firstUnsent = max(firstUnsent, head)
        if head == entries.count {
            entries.removeAll(keepingCapacity: true)
            (head, firstUnsent) = (0, 0)
        } else if head >= 1024 && head * 2 >= entries.count {
            entries.removeSubrange(0..<head)
            firstUnsent -= head
            head = 0
        }
        return count
    }

    /// A new connection opened: everything unacknowledged goes out again,
    /// from the oldest. Returns the `hello` for it (its `next`).
    public mutating func connectionOpened() -> DeliveryMessage {
        connection += 1
        sentOnConnection = 0
        connectionBase = isEmpty ? nextSeq : entries[head].seq
        open = true
        for i in head..<firstUnsent { entries[i].connection = nil }
        firstUnsent = head
        return .hello(epoch: epoch, next: connectionBase)
    }

    public mutating func connectionClosed() { open = false }

    /// The oldest text to send now; call `sent()` when the connection took it.
    /// (One at a time: a view of all of them would copy the entries at the
    /// first `sent()`.)
    public var nextUnsent: String? {
        open && firstUnsent < entries.count ? entries[firstUnsent].text : nil
    }

    /// The oldest unsent message went out on the current connection.
    public mutating func sent() {
        guard open, firstUnsent < entries.count else { return }
        entries[firstUnsent].connection = connection
        entries[firstUnsent].position = sentOnConnection
        sentOnConnection += 1
        firstUnsent += 1
    }

    /// A `ctl` ack: everything of ours up to `seq` is on the peer's screen.
    @discardableResult
    public mutating func acknowledge(epoch: String, seq: Int) -> Int {
        // `seq` is the peer's number: compared before any arithmetic, so no value overflows.
        guard epoch == self.epoch, !isEmpty, seq >= entries[head].seq else { return 0 }
        return removeOldest(min(seq - entries[head].seq + 1, undelivered))
    }

    /// SCTP acknowledged the first `count` chat messages of the current
    /// connection: for a peer without `ctl` acks that is delivery.
    @discardableResult
    public mutating func acknowledgeTransport(count: Int) -> Int {
        guard head < firstUnsent, entries[head].connection == connection, count > entries[head].position else { return 0 }
        return removeOldest(min(count - entries[head].position, firstUnsent - head))
    }
}

/// The sender's half of delivery: every message typed stays here, numbered
/// in this process's sequence (`epoch`), until the peer acknowledged it —
/// by a `ctl` ack (chatcli peers), or else by SCTP's cumulative ack on the
/// connection it went out on. Each new connection (a resumed peer is a new
/// process, hence a new SCTP association) sends everything still here
/// again, in order, so nothing typed while the peer was away, or in flight
/// when it crashed, is lost. Sans-IO: the session hands out the texts.
/// Messages live in memory only, never on disk.
///
/// With a `limit` (a group's pairs, README "Groups"), the outbox never
/// holds the input back: once `limit` bytes wait for this peer it is
/// *behind*, and lines typed meanwhile are not kept for it (counted, not
/// stored) until acknowledgements bring it under half the limit. Each such
/// run becomes a `gap` message (DeliveryMessage) that tells the peer how
/// many lines it missed and where, so a slow or vanished member costs the
/// others nothing and nobody loses a line without being told.
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

    /// Bytes that may wait for this peer before it is behind; nil: no
    /// limit (the two-person chat holds its input back instead).
    public var limit: Int?
    /// Lines not kept because the peer is behind, since the last gap.
    private var skipped = 0
    /// Lines missed since the peer last fell behind (reported when it catches up, or at the end).
    public private(set) var missedSinceBehind = 0
    public private(set) var isBehind = false
    /// Gaps the peer has not acknowledged: sent on each connection, from `firstUnsentGap`.
    private var gaps: [DeliveryMessage] = []
    private var firstUnsentGap = 0
    static let maxGaps = 64

    public init(epoch: String, limit: Int? = nil) {
        self.epoch = epoch
        self.limit = limit
    }

    /// Messages typed that the peer has not acknowledged yet.
    public var undelivered: Int { entries.count - head }
    public var isEmpty: Bool { head == entries.count }
    /// The memory those messages hold: their UTF-8 bytes plus a fixed
    /// `entryOverhead` each (a script's one-byte lines cost more than a byte).
    public private(set) var bytes = 0
    static let entryOverhead = 64

    /// Keeps `text` for the peer; false when the peer is behind (with a
    /// `limit`) and the line is only counted as missed.
    /// `keep`: kept even past the limit (nobody else could take it either, and the input now waits).
    @discardableResult
    public mutating func append(_ text: String, keep: Bool = false) -> Bool {
        if !keep, !takes(text) {
            isBehind = true
            skipped += 1
            missedSinceBehind += 1
            return false
        }
        closeGap()
        entries.append(Entry(seq: nextSeq, text: text))
        bytes += Self.cost(text)
        nextSeq += 1
        return true
    }

    /// Whether `append` would keep `text` for the peer (it is not behind, and the text fits).
    public func takes(_ text: String) -> Bool { takes(bytes: text.utf8.count) }

    /// Whether it would keep a text of `count` UTF-8 bytes.
    public func takes(bytes count: Int) -> Bool {
        guard let limit else { return true }
        return !isBehind && bytes + count + Self.entryOverhead <= limit
    }

    /// Behind, and acknowledgements brought it under half the limit: lines
    /// are kept again, and the run it missed becomes a gap. Returns how
    /// many lines it missed while behind, once, when it caught up.
    public mutating func catchUpIfRoom() -> Int? {
        guard isBehind, let limit, bytes <= limit / 2 else { return nil }
        isBehind = false
        closeGap()
        defer { missedSinceBehind = 0 }
        return missedSinceBehind
    }

    /// The lines skipped since the last gap become one, before the next line's number.
    private mutating func closeGap() {
        guard skipped > 0 else { return }
        if gaps.count >= Self.maxGaps {
            // Bounded: an unsent newest gap and this run are said as one;
            // else the oldest (sent, unacknowledged: a peer without acks) is forgotten.
            if firstUnsentGap < gaps.count, case .gap(_, _, let lines) = gaps.removeLast() {
                skipped += lines
            } else {
                gaps.removeFirst()
                firstUnsentGap -= 1
            }
        }
        gaps.append(.gap(epoch: epoch, before: nextSeq, lines: skipped))
        skipped = 0
    }

    /// The next gap to send on `ctl` now; call `gapSent()` when it went out.
    public var nextUnsentGap: DeliveryMessage? {
        open && firstUnsentGap < gaps.count ? gaps[firstUnsentGap] : nil
    }

    public mutating func gapSent() { firstUnsentGap += 1 }

    /// Gaps before a line the peer acknowledged are known to it.
    private mutating func forgetGaps(through seq: Int) {
        let known = gaps.prefix { if case .gap(_, let before, _) = $0 { before <= seq } else { true } }.count
        gaps.removeFirst(known)
        firstUnsentGap = max(0, firstUnsentGap - known)
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
        firstUnsentGap = 0
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
        guard epoch == self.epoch else { return 0 }
        forgetGaps(through: seq)
        guard !isEmpty, seq >= entries[head].seq else { return 0 }
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

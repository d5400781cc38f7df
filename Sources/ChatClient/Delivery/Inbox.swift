/// The receiver's half of delivery: decides which chat messages reach the
/// screen, so each of a chatcli peer's messages is shown exactly once, in
/// order, even when it arrives again on a new connection (the peer resends
/// what it had no ack for). The peer's `hello` gives the sequence number of
/// the first chat message on a connection; the rest follow in order (the
/// `chat` channel is ordered and reliable). A peer that sent no `hello` on
/// this connection (a browser, aiortc, Inviso's app) gets its messages shown
/// as they come, as plain WebRTC does.
///
/// `chat` and `ctl` are separate SCTP streams, so a `hello` can arrive after
/// the first messages it numbers. From a peer known to send one (it did on
/// an earlier connection), messages are held until it comes, or until
/// `holdLimit` passes (then shown as they are: better twice than never).
///
/// What arrives again is acknowledged again: the ack for it may have gone
/// out on the connection that just died, and a sender that never hears it
/// would wait for it for ever (end of input waits for every ack).
///
/// A `gap` from the peer (it kept no copy of some lines for us: we were too
/// far behind, in a group) is said once, right after the last line before it.
public struct Inbox: Sendable {
    public static let holdLimit: Duration = .seconds(3)

    /// What reaches the screen: a line, or the news that lines are missing there.
    public enum Item: Equatable, Sendable {
        case line(String)
        case gap(lines: Int)
    }

    /// Per peer sequence (epoch): the highest number on the screen.
    private var shown: [String: Int] = [:]
    private var peerSendsHello = false
    /// This connection: the peer's hello, the messages received, those held.
    private var hello: (epoch: String, next: Int)?
    private var received = 0
    private var held: [String] = []
    private var holding = false
    private(set) var holdingSince: Duration?
    /// An ack is owed to the peer (its epoch and the last number shown).
    public private(set) var pendingAck: DeliveryMessage?
    /// Gaps announced but not yet reached, and per epoch the last one said.
    private var gaps: [(epoch: String, before: Int, lines: Int)] = []
    private var gapSaid: [String: Int] = [:]
    static let maxGaps = 64

    public init() {}

    public mutating func connectionOpened() {
        hello = nil
        received = 0
        held = []
        holdingSince = nil
        holding = peerSendsHello
    }

    /// A chat message arrived; returns what to show (nothing while held or a duplicate).
    public mutating func receive(_ text: String, now: Duration) -> [Item] {
        let position = received
        received += 1
        if let hello { return admit(text, seq: hello.next + position, epoch: hello.epoch) }
        if holding {
            if held.isEmpty { holdingSince = now }
            held.append(text)
            return []
        }
        return [.line(text)]
    }

    /// The peer's `gap`: said now if every line before it is shown, else
    /// when the last of them is. Said once, however often it is sent again.
    public mutating func receiveGap(epoch: String, before: Int, lines: Int) -> [Item] {
        guard before > gapSaid[epoch] ?? 0, !gaps.contains(where: { $0.epoch == epoch && $0.before == before }) else { return [] }
        if gaps.count >= Self.maxGaps { gaps.removeFirst() }
        gaps.append((epoch, before, lines))
        return gapsReached(epoch)
    }

    /// The gaps of `epoch` whose lines before are all shown, oldest first.
    private mutating func gapsReached(_ epoch: String) -> [Item] {
        let last = shown[epoch] ?? 0
        let due = gaps.filter { $0.epoch == epoch && $0.before <= last + 1 }.sorted { $0.before < $1.before }
        guard !due.isEmpty else { return [] }
        gaps.removeAll { $0.epoch == epoch && $0.before <= last + 1 }
        gapSaid[epoch] = due.last!.before
        return due.map { .gap(lines: $0.lines) }
    }

    /// The peer's hello for this connection: held messages are numbered,
    /// duplicates dropped, the rest shown.
    public mutating func receiveHello(epoch: String, next: Int) -> [Item] {
        guard hello == nil else { return [] }
        hello = (epoch, next)
        peerSendsHello = true
        // The peer numbers again what is on the screen already: its ack was lost.
        if let last = shown[epoch], last >= next { pendingAck = .ack(epoch: epoch, seq: last) }
        defer { held = []; holding = false; holdingSince = nil }
        if !holding || held.isEmpty {
            // Shown already as they came (not held): remember how far they got.
            let last = next + received - 1
            if received > 0, last > (shown[epoch] ?? 0) {
                shown[epoch] = last
                pendingAck = .ack(epoch: epoch, seq: last)
            }
            return gapsReached(epoch)
        }
        var out: [Item] = []
        for (position, text) in held.enumerated() {
            out += admit(text, seq: next + position, epoch: epoch)
        }
        return out
    }

    /// The hold lasted too long: show what is held, unnumbered.
    public mutating func releaseHeld() -> [Item] {
        defer { held = []; holding = false; holdingSince = nil }
        return held.map(Item.line)
    }

    public mutating func takeAck() -> DeliveryMessage? {
        defer { pendingAck = nil }
        return pendingAck
    }

    private mutating func admit(_ text: String, seq: Int, epoch: String) -> [Item] {
        let last = shown[epoch] ?? 0
        guard seq > last else {
            // Shown before, on an earlier connection: acknowledged again.
            pendingAck = .ack(epoch: epoch, seq: last)
            return []
        }
        let earlier = gapsReached(epoch)
        shown[epoch] = seq
        pendingAck = .ack(epoch: epoch, seq: seq)
        return earlier + [.line(text)] + gapsReached(epoch)
    }
}

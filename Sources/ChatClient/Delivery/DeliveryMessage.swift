import Wire

/// The `ctl` messages that make delivery exactly-once between chatcli peers
/// (README, "Delivery"): chat text itself stays plain on `chat`, so any
/// WebRTC peer can chat; these only number it and acknowledge it.
///
/// - `{"type":"hello","delivery":1,"epoch":E,"next":N}`: sent by each side
///   once `ctl` is open on a connection. `E` names the sending process's
///   message sequence (random, fresh per process); `N` is the sequence
///   number of the first chat message it sends on `chat` over this
///   connection, each later one being the next number.
/// - `{"type":"ack","epoch":E,"seq":N}`: every message of sequence `E` up
///   to `N` is on the receiver's screen.
/// - `{"type":"gap","epoch":E,"before":N,"lines":K}`: `K` lines of
///   sequence `E` were never kept for the receiver (it was too far behind,
///   in a group: `Outbox.limit`); they would have come right before number
///   `N`. The receiver says so once everything before `N` is shown.
public enum DeliveryMessage: Equatable, Sendable {
    case hello(epoch: String, next: Int)
    case ack(epoch: String, seq: Int)
    case gap(epoch: String, before: Int, lines: Int)

    public static let version = 1
    /// Epochs are 16 hex digits; anything longer is not ours.
    static let maxEpochLength = 64

    public init?(json: JSON) {
        guard let type = json["type"]?.stringValue else { return nil }
        switch type {
        case "hello":
            guard let version = json["delivery"]?.intValue, version >= 1,
                  let epoch = Self.epoch(json["epoch"]), let next = Self.sequence(json["next"]) else { return nil }
            self = .hello(epoch: epoch, next: next)
        case "ack":
            guard let epoch = Self.epoch(json["epoch"]), let seq = Self.sequence(json["seq"]) else { return nil }
            self = .ack(epoch: epoch, seq: seq)
        case "gap":
            guard let epoch = Self.epoch(json["epoch"]), let before = Self.sequence(json["before"]), before >= 1,
                  let lines = Self.sequence(json["lines"]), lines >= 1 else { return nil }
            self = .gap(epoch: epoch, before: before, lines: lines)
        default:
            return nil
        }
    }

    public var text: String {
        switch self {
        case .hello(let epoch, let next):
            return JSON.object(["type": "hello", "delivery": JSON(Self.version), "epoch": .string(epoch), "next": JSON(next)]).serialized
        case .ack(let epoch, let seq):
            return JSON.object(["type": "ack", "epoch": .string(epoch), "seq": JSON(seq)]).serialized
        case .gap(let epoch, let before, let lines):
            return JSON.object(["type": "gap", "epoch": .string(epoch), "before": JSON(before), "lines": JSON(lines)]).serialized
        }
    }

    private static func epoch(_ value: JSON?) -> String? {
        guard let text = value?.stringValue, !text.isEmpty, text.utf8.count <= maxEpochLength else { return nil }
        return text
    }

    /// Sequence numbers start at 1 and stay far below 2^53 (JSON numbers).
    private static func sequence(_ value: JSON?) -> Int? {
        guard let n = value?.intValue, n >= 0, n < 1 << 52 else { return nil }
        return n
    }
}

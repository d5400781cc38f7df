import Signaling
import Wire

/// An entry id of a Redis stream (`<ms>-<seq>`), ordered as Redis orders them.
struct StreamID: Comparable, Sendable, CustomStringConvertible {
    var milliseconds: UInt64
    var sequence: UInt64

    static let zero = StreamID(milliseconds: 0, sequence: 0)

    init(milliseconds: UInt64, sequence: UInt64) {
        self.milliseconds = milliseconds
        self.sequence = sequence
    }

    init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let ms = UInt64(parts[0]), let seq = UInt64(parts[1]) else { return nil }
        self.init(milliseconds: ms, sequence: seq)
    }

    var description: String { "\(milliseconds)-\(sequence)" }

    static func < (a: StreamID, b: StreamID) -> Bool {
        (a.milliseconds, a.sequence) < (b.milliseconds, b.sequence)
    }
}

/// Keeps every frame to a connection in the order the hub produced it,
/// sans-IO. A frame the instance answers itself (`pong`, an error for a
/// malformed frame) waits behind the commands that connection sent before
/// it, until Redis has run them *and* the frames they caused have come
/// back through the inbox stream: so a `ping` sent after `join_room` is
/// answered after `room_joined`, as a single server would.
///
/// Each connection's queue holds, in order: commands not yet answered by
/// Redis, the inbox position an answered command's frames end at, and held
/// local frames. Only connections with something queued have a queue.
struct ReplyOrder {
    private enum Item {
        case command(UInt64)
        case inbox(StreamID)
        case frame(ServerMessage)
    }

    private var queues: [ConnectionID: Deque<Item>] = [:]
    /// The inbox has been read through this entry.
    private(set) var inboxRead = StreamID.zero

    /// Connections with frames or commands held (for tests and health).
    var heldConnections: Int { queues.count }

    /// `connection` sent command `sequence` to Redis.
    mutating func commandSent(_ connection: ConnectionID, _ sequence: UInt64) {
        queues[connection, default: Deque()].append(.command(sequence))
    }

    /// A frame produced here: out now, or behind what the connection sent before.
    mutating func local(_ connection: ConnectionID, _ message: ServerMessage) -> [Outbound] {
        guard queues[connection] != nil else { return [Outbound(connection, message)] }
        queues[connection]?.append(.frame(message))
        return []
    }

    /// Redis ran command `sequence`; the frames it caused for this instance
    /// end at inbox entry `through` (nil: it failed and caused none).
    mutating func answered(_ connection: ConnectionID, _ sequence: UInt64, through: StreamID?) -> [Outbound] {
        guard var queue = queues[connection] else { return [] }
        for i in 0..<queue.count {
            guard case .command(let s) = queue[i], s == sequence else { continue }
            queue[i] = .inbox(through ?? .zero)
            break
        }
        queues[connection] = queue
        return release(connection)
    }

    /// The inbox was read through `id`: frames waiting for it may go.
    mutating func inboxRead(through id: StreamID) -> [Outbound] {
        guard id > inboxRead else { return [] }
        inboxRead = id
        var out: [Outbound] = []
        for connection in Array(queues.keys) { out += release(connection) }
        return out
    }

    /// The connection is gone: whatever it still had queued is dropped.
    mutating func remove(_ connection: ConnectionID) {
        queues[connection] = nil
    }

    private mutating func release(_ connection: ConnectionID) -> [Outbound] {
        guard var queue = queues[connection] else { return [] }
        var out: [Outbound] = []
        loop: while let head = queue.first {
            switch head {
            case .command: break loop
            case .inbox(let id) where id > inboxRead: break loop
            case .inbox: break
            case .frame(let message): out.append(Outbound(connection, message))
            }
            _ = queue.popFirst()
        }
        queues[connection] = queue.isEmpty ? nil : queue
        return out
    }
}

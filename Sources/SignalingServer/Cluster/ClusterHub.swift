import Redis
import Runtime
import Signaling
import Wire

/// The signaling WebSocket (WireProtocol §2) across instances: the seats,
/// members and relays live in Redis (``ClusterHubScripts``), so members
/// connected to different instances share a room, and a member whose
/// instance died takes its seat again through any other.
///
/// Each connection's commands go out in the order its frames came in, each
/// with the next sequence number of that connection. Until Redis has
/// answered, a command stays in the outbox; if the connection to Redis
/// drops, the whole outbox is sent again once it is back, and Redis skips
/// what it had already applied. Answers come back through this instance's
/// inbox stream (``inbox(_:_:)``), read in order from the last id seen: so
/// a relay is neither lost nor reordered nor doubled by a reconnect.
///
/// Pings, malformed frames and the `connected` greeting are answered here;
/// everything about rooms goes through Redis, so this instance never
/// answers from a stale memory of a room. A reply made here waits behind
/// the frames of the commands its connection sent before (``ReplyOrder``),
/// so every connection gets its frames in the order a single server would
/// send them.
final class ClusterHub: SignalingRelay {
    /// Commands waiting for Redis beyond this many are refused with an
    /// error frame rather than held without bound.
    static let maxOutbox = 10_000

    private struct Command {
        var script: RedisScript
        var connection: ConnectionID
        var sequence: UInt64
        var arguments: [String]
    }

    private let link: ClusterLink
    private var random: any RandomNumberGenerator
    private var clientIDs: [ConnectionID: UInt64] = [:]
    private var sequences: [ConnectionID: UInt64] = [:]
    private var outbox = Deque<Command>()
    private var sent = 0
    private var generation = 0
    private var order = ReplyOrder()
    /// Frames for connections, delivered as they come out of Redis.
    var onOutbound: (([Outbound]) -> Void)?
    /// A seat holder someone found in a full room: it must prove it is alive.
    var onProbe: ((ConnectionID) -> Void)?

    init(link: ClusterLink, random: any RandomNumberGenerator) {
        self.link = link
        self.random = random
    }

    var connectionCount: Int { clientIDs.count }
    var pendingCommands: Int { outbox.count }

    func connect(_ connection: ConnectionID) -> [Outbound] {
        let id = random.next()
        clientIDs[connection] = id
        sequences[connection] = 0
        return [Outbound(connection, .connected(clientId: Self.render(id)))]
    }

    func receive(_ connection: ConnectionID, text: String, now: UnixTime) -> [Outbound] {
        guard let clientID = clientIDs[connection] else { return [] }
        guard text.utf8.count <= SignalingHub.maxTextBytes else { return order.local(connection, .error(.messageTooLarge)) }
        switch ClientMessage.decode(text: text) {
        case .failure(let code):
            return order.local(connection, .error(code))
        case .success(.ping):
            return order.local(connection, .pong)
        case .success(.joinRoom(let roomId)):
            guard RoomID(roomId) != nil else { return order.local(connection, .error(.roomNotFound)) }
            return enqueue(ClusterHubScripts.join, connection, [roomId])
        case .success(.joinGroup(let roomId, let device)):
            guard RoomID(roomId) != nil else { return order.local(connection, .error(.roomNotFound)) }
            return enqueue(ClusterHubScripts.join, connection, [roomId, device.rawValue])
        case .success(.leaveRoom):
            return enqueue(ClusterHubScripts.leave, connection, [])
        case .success(.relay(let type, let payload)):
            // `to` matters in a group room only; "" when absent or not a string.
            let to = payload.last(where: { $0.0 == "to" })?.1.stringValue ?? ""
            return enqueue(ClusterHubScripts.relay, connection, [type, Self.render(clientID), JSON.object(payload).serialized, to])
        }
    }

    func disconnect(_ connection: ConnectionID) -> [Outbound] {
        guard clientIDs[connection] != nil else { return [] }
        _ = enqueue(ClusterHubScripts.disconnect, connection, [])
        clientIDs[connection] = nil
        sequences[connection] = nil
        order.remove(connection)
        return []
    }

    func pollProbes() -> [ConnectionID] { [] }

    // MARK: - Outbox

    private func enqueue(_ script: RedisScript, _ connection: ConnectionID, _ arguments: [String]) -> [Outbound] {
        guard outbox.count < Self.maxOutbox, let sequence = sequences[connection] else {
            return order.local(connection, .error(SignalingErrorCode(rawValue: "server_unavailable")))
        }
        sequences[connection] = sequence + 1
        outbox.append(Command(script: script, connection: connection, sequence: sequence + 1, arguments: arguments))
        if clientIDs[connection] != nil { order.commandSent(connection, sequence + 1) }
        pump()
        return []
    }

    /// Sends whatever of the outbox is not in flight, if Redis is there.
    func pump() {
        guard link.commands.isReady else { return }
        while sent < outbox.count {
            let command = outbox[sent]
            sent += 1
            let generation = self.generation
            let member = "\(link.instance)/\(command.connection.rawValue)"
            link.run(command.script, now: UnixTime(milliseconds: wallClockMilliseconds()),
                     [member, String(command.sequence)] + command.arguments) { [weak self] result in
                self?.answered(result, generation: generation)
            }
        }
    }

    /// Replies come in the order sent, so each one answers the outbox's head.
    private func answered(_ result: Result<RESPValue, RedisError>, generation: Int) {
        guard generation == self.generation else { return }
        switch result {
        case .success, .failure(.server):
            var through: StreamID?
            switch result {
            case .success(let value): through = value.elements?.last?.string.flatMap(StreamID.init)
            case .failure(let error): link.log.write("error", ["what": "hub_command", "reason": error.description])
            }
            guard let command = outbox.popFirst() else { return }
            sent -= 1
            let released = order.answered(command.connection, command.sequence, through: through)
            if !released.isEmpty { onOutbound?(released) }
        case .failure(.unavailable):
            // Everything in flight fails with it; all of it goes again on ready.
            self.generation += 1
            sent = 0
        }
    }

    /// Redis is back: resend the outbox from its head.
    func commandsReady() {
        generation += 1
        sent = 0
        pump()
    }

    // MARK: - Inbox

    /// The inbox was read through `id`: local replies waiting for it go out.
    func inboxRead(through id: StreamID) {
        let released = order.inboxRead(through: id)
        if !released.isEmpty { onOutbound?(released) }
    }

    /// One entry of this instance's inbox, for `connection`.
    func inbox(_ connection: ConnectionID, _ fields: [String: String]) {
        guard clientIDs[connection] != nil, let event = fields["ev"] else { return }
        if event == "probe" {
            onProbe?(connection)
            return
        }
        guard let message = Self.message(event, fields) else { return }
        onOutbound?([Outbound(connection, message)])
    }

    static func message(_ event: String, _ fields: [String: String]) -> ServerMessage? {
        let room = fields["room"].flatMap { $0.isEmpty ? nil : $0 }
        switch event {
        case "joined":
            guard let room, let n = fields["n"].flatMap(Int.init) else { return nil }
            return .roomJoined(roomId: room, userCount: n, isInitiator: fields["init"] == "1", ready: n == 2)
        case "ready":
            guard let room else { return nil }
            return .roomReady(roomId: room, userCount: 2, isInitiator: fields["init"] == "1")
        case "full": return .roomFull
        case "left": return .leftRoom(roomId: room)
        case "peer_left": return .peerLeft(roomId: room)
        case "peer_disconnected": return .peerDisconnected(roomId: room)
        case "error": return fields["code"].map { .error(SignalingErrorCode(rawValue: $0)) }
        case "gjoined", "mjoined", "mleft": return groupMessage(event, fields)
        case "relay":
            guard let type = fields["type"], let text = fields["payload"],
                  case .object(let payload)? = try? JSON.parse(text) else { return nil }
            return .relayed(type: type, from: fields["from"], roomId: room, payload: payload)
        default: return nil
        }
    }

    private static func render(_ id: UInt64) -> String {
        Hex.encode((0..<8).map { UInt8(truncatingIfNeeded: id >> (56 - 8 * $0)) })
    }
}

import Signaling
import Wire

/// Identifies one WebSocket connection; the wiring layer assigns them.
public struct ConnectionID: Hashable, Sendable {
    public let rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
}

/// A message to send on a connection.
public struct Outbound: Equatable, Sendable {
    public var connection: ConnectionID
    public var message: ServerMessage

    public init(_ connection: ConnectionID, _ message: ServerMessage) {
        self.connection = connection
        self.message = message
    }

    /// The text frame to send.
    public var text: String { message.json.serialized }
}

/// The WebSocket side of the signaling server (WireProtocol §2): a sans-IO hub
/// that turns text frames into the frames to send back.
///
/// **Seats.** A room has two seats. Seat 0 is the initiator's: the member who
/// was in the room first. A joiner takes a free seat, seat 0 if both are free,
/// so a member who reconnects (the join message carries no identity) takes
/// the seat its old socket freed, and with it its role: `isInitiator` in
/// `room_joined` and `room_ready` is the seat's role, not the join order.
/// When both seats are empty the hub forgets the room, and whoever comes
/// first next is the initiator.
///
/// **Deleted rooms.** `join_room` asks the registry (through
/// `roomIsJoinable`) every time, so a deleted, purged or expired room takes no
/// new member and no rejoin. Members already seated are not kicked: the
/// protocol has no message for it, and their chat may already run peer to
/// peer; the server was never what protects it.
///
/// **Group rooms** (WireProtocol §2b) seat members by member id instead;
/// see `SignalingHub+Group.swift`.
///
/// Every operation is O(1) (in a group room, O(members)); a connection
/// costs one small dictionary entry.
public final class SignalingHub {
    /// Text frames over this many bytes are answered `message_too_large`.
    public static let maxTextBytes = 64 * 1024

    struct Member {
        var clientID: UInt64
        var room: RoomID?
        var seat: Int = 0
        /// Set while seated in a group room: the member id it sits as.
        var groupMember: MemberID?
    }

    /// Two inline optionals rather than an array: no heap allocation per room.
    private struct Seats {
        var initiator: ConnectionID?
        var other: ConnectionID?

        subscript(seat: Int) -> ConnectionID? {
            get { seat == 0 ? initiator : other }
            set { if seat == 0 { initiator = newValue } else { other = newValue } }
        }

        var count: Int { (initiator == nil ? 0 : 1) + (other == nil ? 0 : 1) }
        var freeSeat: Int? { initiator == nil ? 0 : other == nil ? 1 : nil }
    }

    var members: [ConnectionID: Member] = [:]
    private var rooms: [RoomID: Seats] = [:]
    var groups: [RoomID: GroupSeats] = [:]
    var probes: [ConnectionID] = []
    private var random: any RandomNumberGenerator
    private let roomIsJoinable: (RoomID, UnixTime) -> Bool
    let roster: (RoomID, UnixTime) -> RoomRegistry.Roster?
    let endGroup: (RoomID, UnixTime) -> Void

    /// `roomIsJoinable` answers whether a room is accepted and unexpired,
    /// usually `registry.isJoinable`; `roster` the members admitted to a
    /// group room (nil for a two-member room), usually `registry.roster`;
    /// `endGroup` is told when every member of a group room has left it,
    /// usually `registry.endGroup`.
    public init(
        random: any RandomNumberGenerator, roomIsJoinable: @escaping (RoomID, UnixTime) -> Bool,
        roster: @escaping (RoomID, UnixTime) -> RoomRegistry.Roster? = { _, _ in nil },
        endGroup: @escaping (RoomID, UnixTime) -> Void = { _, _ in }
    ) {
        self.random = random
        self.roomIsJoinable = roomIsJoinable
        self.roster = roster
        self.endGroup = endGroup
    }

    public var connectionCount: Int { members.count }
    public var occupiedRoomCount: Int { rooms.count + groups.count }

    /// The `clientId` this connection was given.
    public func clientID(of connection: ConnectionID) -> String? { members[connection].map { Self.render($0.clientID) } }

    /// Seat holders of rooms someone found full: each should prove it is
    /// alive (a ping answered promptly), or lose its seat (`disconnect`).
    public func pollProbes() -> [ConnectionID] {
        defer { probes = [] }
        return probes
    }

    public func connect(_ connection: ConnectionID) -> [Outbound] {
        let id = random.next()
        members[connection] = Member(clientID: id)
        return [Outbound(connection, .connected(clientId: Self.render(id)))]
    }

    public func receive(_ connection: ConnectionID, text: String, now: UnixTime) -> [Outbound] {
        guard members[connection] != nil else { return [] }
        guard text.utf8.count <= Self.maxTextBytes else { return [Outbound(connection, .error(.messageTooLarge))] }
        switch ClientMessage.decode(text: text) {
        case .failure(let code):
            return [Outbound(connection, .error(code))]
        case .success(.ping):
            return [Outbound(connection, .pong)]
        case .success(.joinRoom(let roomId)):
            if let id = RoomID(roomId), roster(id, now) != nil { return [Outbound(connection, .error(.notAMember))] }
            return join(connection, roomId: roomId, now: now)
        case .success(.joinGroup(let roomId, let device)):
            // A device id means nothing to a two-member room: joined as ever.
            guard let id = RoomID(roomId), let roster = roster(id, now) else { return join(connection, roomId: roomId, now: now) }
            return joinGroup(connection, id, roster, device: device, now: now)
        case .success(.leaveRoom):
            let (room, out) = vacateAny(connection, leaving: .left, now: now)
            return [Outbound(connection, .leftRoom(roomId: room?.rawValue))] + out
        case .success(.relay(let type, let payload)):
            if members[connection]?.groupMember != nil { return relayInGroup(connection, type: type, payload: payload, now: now) }
            return relay(connection, type: type, payload: payload)
        }
    }

    /// The socket closed or missed its heartbeat: the seat frees and the
    /// other member learns it.
    public func disconnect(_ connection: ConnectionID) -> [Outbound] {
        let (_, out) = vacateAny(connection, leaving: .disconnected, now: nil)
        members[connection] = nil
        return out
    }

    // MARK: - Rules

    private func join(_ connection: ConnectionID, roomId: String, now: UnixTime) -> [Outbound] {
        guard let id = RoomID(roomId), roomIsJoinable(id, now) else { return [Outbound(connection, .error(.roomNotFound))] }
        guard let member = members[connection] else { return [] }
        if member.room == id, let seats = rooms[id] {
            // Joining the room it is in again: repeat the answer, change nothing.
            let count = seats.count
            return [Outbound(connection, .roomJoined(roomId: roomId, userCount: count, isInitiator: member.seat == 0, ready: count == 2))]
        }
        var seats = rooms[id] ?? Seats()
        guard let seat = seats.freeSeat else {
            // A member whose network changed comes back on a new socket while
            // its old one still holds the seat, silently dead: ask the holders.
            probes += [seats.initiator, seats.other].compactMap { $0 }
            return [Outbound(connection, .roomFull)]
        }
        // Moving to another room leaves the old one first.
        var out = vacateAny(connection, leaving: .left, now: now).1
        seats[seat] = connection
        rooms[id] = seats
        members[connection]?.room = id
        members[connection]?.seat = seat
        let count = seats.count
        out.append(Outbound(connection, .roomJoined(roomId: roomId, userCount: count, isInitiator: seat == 0, ready: count == 2)))
        if count == 2, let peer = seats[1 - seat] {
            out.append(Outbound(peer, .roomReady(roomId: roomId, userCount: 2, isInitiator: seat != 0)))
            out.append(Outbound(connection, .roomReady(roomId: roomId, userCount: 2, isInitiator: seat == 0)))
        }
        return out
    }

    private func relay(_ connection: ConnectionID, type: String, payload: [(String, JSON)]) -> [Outbound] {
        guard let member = members[connection], let room = member.room, let seats = rooms[room] else {
            return [Outbound(connection, .error(.notInRoom))]
        }
        guard let peer = seats[1 - member.seat] else { return [Outbound(connection, .error(.noPeer))] }
        let from = Self.render(member.clientID)
        return [Outbound(peer, .relayed(type: type, from: from, roomId: room.rawValue, payload: payload))]
    }

    /// Frees the connection's seat; returns the room it was in and the
    /// message for the member who stays.
    func vacate(_ connection: ConnectionID, tellPeer: (RoomID) -> ServerMessage) -> (RoomID?, [Outbound]) {
        guard let member = members[connection], let room = member.room else { return (nil, []) }
        members[connection]?.room = nil
        guard var seats = rooms[room] else { return (room, []) }
        seats[member.seat] = nil
        let peer = seats[1 - member.seat]
        rooms[room] = seats.count == 0 ? nil : seats
        return (room, peer.map { [Outbound($0, tellPeer(room))] } ?? [])
    }

    /// A client id as 16 lowercase hex digits (a valid `DeviceID` shape).
    static func render(_ id: UInt64) -> String {
        Hex.encode((0..<8).map { UInt8(truncatingIfNeeded: id >> (56 - 8 * $0)) })
    }
}

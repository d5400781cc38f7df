import Signaling
import Wire

/// Group rooms on the WebSocket (WireProtocol §2b).
///
/// **Seats.** A group room has one seat per admitted member, named by its
/// member id; a member takes it with the device id it was admitted with
/// (`join_room` with `deviceId`), so a member back on a new socket takes its
/// own seat again, and nobody can sit as another member without that
/// member's device id, which the server never shows to the others. While a
/// seat's old socket still holds it, the newcomer gets `room_full` and its
/// holder is probed, as in a two-member room.
///
/// **Addressing.** Every relay names one member (`to`); the server delivers
/// it to that member only, with `from` set to the sender's member id
/// (whatever `from` the sender wrote is dropped). There is no broadcast: the
/// signaling of a mesh is pairwise, and a fan-out would let one member
/// multiply its traffic by seven.
///
/// **End.** The room ends (its code and id are deleted) when a `leave_room`
/// leaves nobody seated and every admitted member has left that way; a
/// member whose socket merely closed may come back, so it keeps the room
/// until it expires.
extension SignalingHub {
    struct GroupSeats {
        var seated: [MemberID: ConnectionID] = [:]
        /// Members who sent `leave_room` since they were last seated.
        var left: Set<MemberID> = []
    }

    func joinGroup(_ connection: ConnectionID, _ id: RoomID, _ roster: RoomRegistry.Roster, device: DeviceID, now: UnixTime) -> [Outbound] {
        guard let me = roster.member(device: device)?.memberID, let member = members[connection] else {
            return [Outbound(connection, .error(.notAMember))]
        }
        var seats = groups[id] ?? GroupSeats()
        if let holder = seats.seated[me] {
            guard holder == connection, member.room == id else {
                probes.append(holder)
                return [Outbound(connection, .roomFull)]
            }
            // Joining the seat it holds again: repeat the answer, change nothing.
            return [Outbound(connection, .groupJoined(joined(id, roster, me, seats)))]
        }
        var out = vacateAny(connection, leaving: .left, now: now).1
        seats = groups[id] ?? GroupSeats()
        seats.seated[me] = connection
        seats.left.remove(me)
        groups[id] = seats
        members[connection]?.room = id
        members[connection]?.groupMember = me
        out.append(Outbound(connection, .groupJoined(joined(id, roster, me, seats))))
        let mine = roster.index(of: me) ?? Int.max
        for (other, socket) in seats.seated where other != me {
            let theirs = roster.index(of: other) ?? Int.max
            out.append(Outbound(socket, .memberJoined(roomId: id.rawValue, memberId: me, isInitiator: theirs < mine, userCount: seats.seated.count)))
        }
        return out
    }

    /// The others seated, in admission order; the earlier of a pair offers.
    private func joined(_ id: RoomID, _ roster: RoomRegistry.Roster, _ me: MemberID, _ seats: GroupSeats) -> GroupJoined {
        let mine = roster.index(of: me) ?? Int.max
        let others = seats.seated.keys.filter { $0 != me }.map { ($0, roster.index(of: $0) ?? Int.max) }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
        return GroupJoined(
            roomId: id.rawValue, memberId: me, max: roster.max,
            members: others.map { GroupPeer(memberId: $0.0, isInitiator: mine < $0.1) })
    }

    func relayInGroup(_ connection: ConnectionID, type: String, payload: [(String, JSON)], now: UnixTime) -> [Outbound] {
        guard let member = members[connection], let room = member.room, let me = member.groupMember, let seats = groups[room] else {
            return [Outbound(connection, .error(.notInRoom))]
        }
        guard let to = payload.last(where: { $0.0 == "to" })?.1.stringValue else { return [Outbound(connection, .error(.missingTo))] }
        guard let target = MemberID(to), target != me, seats.seated[target] != nil || roster(room, now)?.index(of: target) != nil else {
            return [Outbound(connection, .error(.unknownMember))]
        }
        guard let peer = seats.seated[target] else { return [Outbound(connection, .error(.noPeer))] }
        return [Outbound(peer, .relayed(type: type, from: me.rawValue, roomId: room.rawValue, payload: payload))]
    }

    /// Frees whatever seat the connection holds, in a pair or a group;
    /// `now` is nil for a socket that closed (which never ends a group).
    func vacateAny(_ connection: ConnectionID, leaving: MemberLeaving, now: UnixTime?) -> (RoomID?, [Outbound]) {
        guard let member = members[connection], let room = member.room else { return (nil, []) }
        guard let me = member.groupMember else {
            switch leaving {
            case .left: return vacate(connection, tellPeer: { .peerLeft(roomId: $0.rawValue) })
            case .disconnected: return vacate(connection, tellPeer: { .peerDisconnected(roomId: $0.rawValue) })
            }
        }
        members[connection]?.room = nil
        members[connection]?.groupMember = nil
        guard var seats = groups[room], seats.seated[me] == connection else { return (room, []) }
        seats.seated[me] = nil
        if leaving == .left { seats.left.insert(me) }
        let out = seats.seated.values.map {
            Outbound($0, .memberLeft(roomId: room.rawValue, memberId: me, reason: leaving, userCount: seats.seated.count))
        }
        guard seats.seated.isEmpty else {
            groups[room] = seats
            return (room, out)
        }
        // Nobody is seated: the hub forgets the room, which ends if every
        // member it admitted has left it.
        groups[room] = nil
        if let now, let roster = roster(room, now), roster.members.allSatisfy({ seats.left.contains($0.memberID) }) {
            endGroup(room, now)
        }
        return (room, out)
    }
}

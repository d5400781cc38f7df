import Signaling

/// Group rooms (WireProtocol §2b): admission up to `max`, one member id per
/// device, and the roster the WebSocket hub seats members from.
extension RoomRegistry {
    /// Who may sit in a group room, and in which order they were admitted
    /// (the earlier of two members makes the offer to the later).
    public typealias Roster = Room.Group

    /// The roster of a live, accepted group room; nil for a two-member room
    /// or none.
    public func roster(id: RoomID, now: UnixTime) -> Roster? {
        guard let room = room(id: id, now: now), room.state == .accepted, let group = room.group else { return nil }
        return group
    }

    /// The member a device is in a live group room, for the answers of
    /// `create`, `accept` and `check`.
    public func member(device: DeviceID, joinCode: JoinCode, now: UnixTime) -> (Room.Group, Room.Group.Member)? {
        guard let room = rooms[joinCode], room.isLive(at: now), let group = room.group, let member = group.member(device: device) else { return nil }
        return (group, member)
    }

    /// Admits `device` to a live group room: the first acceptor gives it its
    /// room id (and wakes the creator's long poll), later ones join it. A
    /// device admitted before gets the same answer again (a retry after a
    /// lost response), except the creator, which learns the id from `check`.
    func acceptMember(_ room: Room, device: DeviceID) throws(RoomStoreError) -> AcceptOutcome {
        guard var group = room.group else { return .alreadyAccepted }
        if group.member(device: device) != nil {
            guard let id = room.roomID, device != room.client1 else { return .alreadyAccepted }
            return .accepted(id)
        }
        guard group.members.count < group.max else { return .roomFull }
        var updated = room
        var memberID = MemberID.random(using: &random)
        while group.index(of: memberID) != nil { memberID = MemberID.random(using: &random) }
        group.members.append(.init(deviceID: device, memberID: memberID))
        updated.group = group
        let first = room.roomID == nil
        let id = room.roomID ?? freshRoomID()
        if first {
            updated.roomID = id
            updated.client2 = device
            updated.state = .accepted
        }
        try store.save(updated)
        insert(updated)
        if first { waiters.wake(room.joinCode, with: .accepted(id)) }
        return .accepted(id)
    }

    func freshRoomID() -> RoomID {
        var id = RoomID.random(using: &random)
        while codeByRoomID[id] != nil { id = RoomID.random(using: &random) }
        return id
    }

    /// Takes purged devices out of the group rooms they are members of; a
    /// group left with nobody is deleted. Returns how many rooms went, by state.
    func purgeMembers(_ ids: Set<DeviceID>, now: UnixTime) throws(RoomStoreError) -> (accepted: Int, pending: Int) {
        var emptied: [Room] = []
        for room in rooms.values where room.isLive(at: now) {
            guard var group = room.group, group.members.contains(where: { ids.contains($0.deviceID) }) else { continue }
            group.members.removeAll { ids.contains($0.deviceID) }
            if group.members.isEmpty {
                emptied.append(room)
                continue
            }
            var updated = room
            updated.group = group
            try store.save(updated)
            insert(updated)
        }
        try remove(emptied)
        let accepted = emptied.filter { $0.state == .accepted }.count
        return (accepted, emptied.count - accepted)
    }

    /// Ends a group room whose every member left it (`leave_room`).
    public func endGroup(id: RoomID, now: UnixTime) throws(RoomStoreError) {
        guard let room = room(id: id, now: now), room.group != nil else { return }
        try remove([room])
    }
}

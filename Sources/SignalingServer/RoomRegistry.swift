import Signaling

/// The rooms of the signaling server: a sans-IO state machine over a
/// `RoomStore`.
///
/// Every operation takes `now`; randomness comes from the injected generator
/// (a CSPRNG in production: `SystemRandomNumberGenerator` reads `getrandom`).
/// State changes are written to the store first and applied to memory only
/// when the write succeeded, so a failing disk never leaves memory ahead of it.
///
/// A room is live while `now < exp`; an expired room is treated as absent by
/// every lookup even before `sweep` removes it. The sweep removes only
/// expired rooms, so an accepted room is never lost before its `exp`.
///
/// Long polls (`check` with `wait`) park a token; when the room is accepted,
/// deleted, purged or swept the token is queued with its answer, and the
/// caller drains the queue with `pollWakeups()` after each call. Timing a
/// parked poll out is the caller's job (`finishWaiter`).
public final class RoomRegistry {
    let store: any RoomStore
    var random: any RandomNumberGenerator
    public private(set) var rateLimiter: SlidingWindowLimiter

    var rooms: [JoinCode: Room] = [:]
    var codeByRoomID: [RoomID: JoinCode] = [:]
    var waiters = LongPollWaiters()

    public init(store: any RoomStore, random: any RandomNumberGenerator, rateLimiter: SlidingWindowLimiter = SlidingWindowLimiter(), maxRooms: Int = RoomRegistry.defaultMaxRooms) throws(RoomStoreError) {
        self.store = store
        self.random = random
        self.rateLimiter = rateLimiter
        self.maxRooms = max(1, maxRooms)
        for room in try store.loadRooms() { insert(room) }
    }

    public var roomCount: Int { rooms.count }
    /// Live rooms nobody has accepted yet (the rest are paired).
    public var waitingRoomCount: Int { rooms.values.lazy.filter { $0.state == .pending }.count }

    /// Live rooms above which `create` is refused (`code_space_full`): a
    /// tenth of the 10^6 codes, so a client's random code is free at least
    /// nine times in ten and creating never turns into a run of collisions.
    public static let defaultMaxRooms = 100_000
    public let maxRooms: Int

    // MARK: - Create, accept, check

    public enum CreateOutcome: Equatable, Sendable {
        case created(expiry: UnixTime)
        case joinCodeInUse
        /// `maxRooms` rooms hold codes: refused until some expire.
        case codeSpaceFull
    }

    /// `groupMax`: a group room of up to that many members (3…8, checked by
    /// the caller), the creator its first; nil: a two-member room.
    public func create(joinCode: JoinCode, client1: DeviceID, expiresInSeconds: Int64, groupMax: Int? = nil, now: UnixTime) throws(RoomStoreError) -> CreateOutcome {
        if let existing = rooms[joinCode] {
            if existing.isLive(at: now) { return .joinCodeInUse }
            try remove([existing])
        }
        guard rooms.count < maxRooms else { return .codeSpaceFull }
        var room = Room(joinCode: joinCode, client1: client1, expiry: now.adding(seconds: expiresInSeconds))
        if let groupMax {
            room.group = Room.Group(max: groupMax, members: [.init(deviceID: client1, memberID: MemberID.random(using: &random))])
        }
        try store.save(room)
        insert(room)
        return .created(expiry: room.expiry)
    }

    public enum AcceptOutcome: Equatable, Sendable {
        case accepted(RoomID)
        case notFound
        case alreadyAccepted
        /// A group room that holds its `max` members.
        case roomFull
        case rateLimited(retryAfterSeconds: Int64)
    }

    /// Seconds an address must wait before its `accept` calls are answered,
    /// or nil. Checked before anything else so a limited address learns nothing.
    public func acceptRetryAfter(address: String, now: UnixTime) -> Int64? {
        rateLimiter.retryAfter(client: address, now: now)
    }

    public func accept(joinCode: JoinCode, client2: DeviceID, address: String, now: UnixTime) throws(RoomStoreError) -> AcceptOutcome {
        if let wait = rateLimiter.retryAfter(client: address, now: now) { return .rateLimited(retryAfterSeconds: wait) }
        guard var room = rooms[joinCode], room.isLive(at: now) else {
            rateLimiter.record(client: address, now: now)
            return .notFound
        }
        if room.group != nil { return try acceptMember(room, device: client2) }
        guard room.state == .pending else { return .alreadyAccepted }
        let roomID = freshRoomID()
        room.client2 = client2
        room.roomID = roomID
        room.state = .accepted
        try store.save(room)
        insert(room)
        waiters.wake(joinCode, with: .accepted(roomID))
        return .accepted(roomID)
    }

    public enum CheckOutcome: Equatable, Sendable {
        case pending
        case accepted(RoomID)
        case notFound
        /// Parked: the answer comes later through `pollWakeups()` or `finishWaiter`.
        case waiting(LongPollToken)
    }

    /// `404` unless the room lives and `client1` created it; with `wait`, a
    /// pending room parks a long poll instead of answering `pending`.
    public func check(joinCode: JoinCode, client1: DeviceID, now: UnixTime, wait: Bool = false) -> CheckOutcome {
        guard let room = rooms[joinCode], room.isLive(at: now), room.client1 == client1 else { return .notFound }
        if room.state == .accepted, let id = room.roomID { return .accepted(id) }
        guard wait else { return .pending }
        return .waiting(waiters.park(joinCode, client1: client1))
    }

    /// The answer for a parked poll whose deadline passed (the room's state
    /// now), or nil if it was already answered or cancelled.
    public func finishWaiter(_ token: LongPollToken, now: UnixTime) -> CheckOutcome? {
        guard let (code, client1) = waiters.unpark(token) else { return nil }
        return check(joinCode: code, client1: client1, now: now)
    }

    /// Forgets a parked poll whose connection closed.
    public func cancelWaiter(_ token: LongPollToken) { _ = waiters.unpark(token) }

    /// Parked polls answered since the last call, with their answers.
    public func pollWakeups() -> [(LongPollToken, CheckOutcome)] { waiters.drain() }

    // MARK: - Rooms by id, delete, purge, sweep

    /// The live, accepted room with this id.
    public func room(id: RoomID, now: UnixTime) -> Room? {
        guard let code = codeByRoomID[id], let room = rooms[code], room.isLive(at: now) else { return nil }
        return room
    }

    /// Whether members may join this room over the WebSocket.
    public func isJoinable(_ id: RoomID, now: UnixTime) -> Bool { room(id: id, now: now)?.state == .accepted }

    /// Deletes a live room; false if there is none with this id.
    public func delete(id: RoomID, now: UnixTime) throws(RoomStoreError) -> Bool {
        guard let room = room(id: id, now: now) else { return false }
        try remove([room])
        return true
    }

    public struct PurgeResult: Equatable, Sendable {
        public var roomsDeleted: Int
        public var pendingsDeleted: Int
    }

    /// Deletes every live room these devices created or accepted. A linear
    /// scan: purges are rare, and an index per device would cost memory on
    /// every room.
    public func purge(deviceIDs: [DeviceID], now: UnixTime) throws(RoomStoreError) -> PurgeResult {
        let ids = Set(deviceIDs)
        // A group room loses the purged members and ends with its last one.
        let endedGroups = try purgeMembers(ids, now: now)
        let doomed = rooms.values.filter { room in
            room.isLive(at: now) && room.group == nil && (ids.contains(room.client1) || room.client2.map(ids.contains) == true)
        }
        try remove(doomed)
        let accepted = doomed.filter { $0.state == .accepted }.count
        return PurgeResult(roomsDeleted: accepted + endedGroups.accepted, pendingsDeleted: doomed.count - accepted + endedGroups.pending)
    }

    /// Removes expired rooms (and forgets stale rate-limit entries); returns
    /// how many rooms went. Call it periodically, e.g. every 60 s.
    @discardableResult
    public func sweep(now: UnixTime) throws(RoomStoreError) -> Int {
        rateLimiter.sweep(now: now)
        let expired = rooms.values.filter { !$0.isLive(at: now) }
        try remove(expired)
        return expired.count
    }

    // MARK: - Memory and store

    func insert(_ room: Room) {
        rooms[room.joinCode] = room
        if let id = room.roomID { codeByRoomID[id] = room.joinCode }
    }

    /// Deletes from the store, then from memory, answering parked polls with 404.
    func remove(_ doomed: [Room]) throws(RoomStoreError) {
        guard !doomed.isEmpty else { return }
        try store.delete(doomed.map(\.joinCode))
        for room in doomed {
            rooms[room.joinCode] = nil
            if let id = room.roomID { codeByRoomID[id] = nil }
            waiters.wake(room.joinCode, with: .notFound)
        }
    }
}

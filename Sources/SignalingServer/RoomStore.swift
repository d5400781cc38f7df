import Signaling

/// Why the persistent store failed; the REST layer answers `500 internal_error`.
public struct RoomStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Where rooms persist, so they survive a restart. The registry loads every
/// room once at start and then writes through on each change, before it
/// changes its own memory (a failed write changes nothing).
public protocol RoomStore: AnyObject {
    func loadRooms() throws(RoomStoreError) -> [Room]
    /// Inserts or replaces the room with this join code.
    func save(_ room: Room) throws(RoomStoreError)
    /// Deletes the rooms with these join codes, all or none.
    func delete(_ joinCodes: [JoinCode]) throws(RoomStoreError)
}

/// A store for tests and for `--db :memory:`-style runs.
public final class InMemoryRoomStore: RoomStore {
    public private(set) var rooms: [JoinCode: Room] = [:]
    /// When set, every write fails with this error (to test failure paths).
    public var failWrites: RoomStoreError?

    public init(rooms: [Room] = []) {
        for room in rooms { self.rooms[room.joinCode] = room }
    }

    public func loadRooms() throws(RoomStoreError) -> [Room] { Array(rooms.values) }

    public func save(_ room: Room) throws(RoomStoreError) {
        if let failWrites { throw failWrites }
        rooms[room.joinCode] = room
    }

    public func delete(_ joinCodes: [JoinCode]) throws(RoomStoreError) {
        if let failWrites { throw failWrites }
        for code in joinCodes { rooms[code] = nil }
    }
}

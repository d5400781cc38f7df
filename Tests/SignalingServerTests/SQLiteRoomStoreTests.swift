import TestSupport
import CSQLite
import Foundation
import Signaling
@testable import SignalingServer
import Testing

/// A fresh database path under the temporary directory, removed afterwards.
private struct TempDatabase {
    let path = NSTemporaryDirectory() + "chatcli-rooms-\(UUID().uuidString).sqlite"
    func remove() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

@Test func roomsAndTheirStateSurviveReopeningTheStore() throws {
    let db = TempDatabase()
    defer { db.remove() }
    let now = UnixTime(seconds: 1_790_000_000)
    var roomID: RoomID?
    do {
        let store = try SQLiteRoomStore(path: db.path)
        let registry = try RoomRegistry(store: store, random: SeededRandom(seed: 1))
        let a = try #require(JoinCode("111111")), b = try #require(JoinCode("222222")), c = try #require(JoinCode("333333"))
        let alice = try #require(DeviceID("alice-device")), bob = try #require(DeviceID("bob-device"))
        _ = try registry.create(joinCode: a, client1: alice, expiresInSeconds: 600, now: now)
        _ = try registry.create(joinCode: b, client1: alice, expiresInSeconds: 600, now: now)
        _ = try registry.create(joinCode: c, client1: bob, expiresInSeconds: 600, now: now)
        if case .accepted(let id) = try registry.accept(joinCode: a, client2: bob, address: "x", now: now) { roomID = id }
        _ = try registry.purge(deviceIDs: [bob], now: now)  // removes c (pending) and a (accepted)
        _ = try registry.create(joinCode: a, client1: bob, expiresInSeconds: 900, now: now)
        if case .accepted(let id) = try registry.accept(joinCode: a, client2: alice, address: "x", now: now) { roomID = id }
    }
    let reopened = try SQLiteRoomStore(path: db.path)
    #expect(try reopened.journalMode() == "wal")
    let registry = try RoomRegistry(store: reopened, random: SeededRandom(seed: 2))
    #expect(registry.roomCount == 2)
    let id = try #require(roomID)
    let room = try #require(registry.room(id: id, now: now))
    #expect(room.client1.rawValue == "bob-device")
    #expect(room.client2?.rawValue == "alice-device")
    #expect(room.state == .accepted)
    #expect(room.expiry == now.adding(seconds: 900))
    #expect(registry.check(joinCode: JoinCode("222222")!, client1: DeviceID("alice-device")!, now: now) == .pending)
    #expect(try registry.create(joinCode: JoinCode("222222")!, client1: DeviceID("carol-device")!, expiresInSeconds: 60, now: now) == .joinCodeInUse)
}

@Test func storeWritesThroughEveryChange() throws {
    let db = TempDatabase()
    defer { db.remove() }
    let store = try SQLiteRoomStore(path: db.path)
    let room = Room(joinCode: JoinCode("123456")!, client1: DeviceID("alice-device")!, expiry: UnixTime(seconds: 100))
    try store.save(room)
    var accepted = room
    accepted.client2 = DeviceID("bob-device")
    accepted.roomID = RoomID(String(repeating: "ab", count: 24))
    accepted.state = .accepted
    try store.save(accepted)
    #expect(try store.loadRooms() == [accepted])
    try store.delete([room.joinCode, JoinCode("000000")!])
    #expect(try store.loadRooms().isEmpty)
}

@Test func schemaVersionIsRecorded() throws {
    let db = TempDatabase()
    defer { db.remove() }
    _ = try SQLiteRoomStore(path: db.path)
    // Opening again must not try to migrate a current schema.
    let again = try SQLiteRoomStore(path: db.path)
    #expect(try again.loadRooms().isEmpty)
}

@Test func unopenableDatabaseIsAStoreError() {
    #expect(throws: RoomStoreError.self) { try SQLiteRoomStore(path: "/nonexistent-dir/x/rooms.sqlite") }
}

private func walSize(_ db: TempDatabase) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: db.path + "-wal"))?[.size] as? Int) ?? 0
}

private func fill(_ store: SQLiteRoomStore, rooms: Range<Int>) throws {
    for i in rooms {
        let code = JoinCode(String(format: "%06d", i))!
        try store.save(Room(joinCode: code, client1: DeviceID("device-\(i)-aaaaaaaaaaaaaaaa")!, expiry: UnixTime(seconds: 2_000_000_000)))
    }
}

/// Before: 3,000 rooms made a 38 MB log (autocheckpoint off, and the
/// checkpoint thread's connection had never read the database, so its
/// checkpoints did nothing).
@Test func theWriteAheadLogStaysBoundedAndTheCheckpointerCutsIt() throws {
    let db = TempDatabase()
    defer { db.remove() }
    let store = try SQLiteRoomStore(path: db.path, autoCheckpoint: false)
    try fill(store, rooms: 0..<3000)
    #expect(walSize(db) <= 9 * 1024 * 1024, "the backstop checkpoint bounds the log without the thread: \(walSize(db))")
    let checkpointer = try #require(WALCheckpointer.open(db.path))
    defer { sqlite3_close(checkpointer) }
    let copied = try #require(WALCheckpointer.checkpoint(checkpointer))
    #expect(copied > 0, "a fresh connection's checkpoint does copy the log back")
    try fill(store, rooms: 3000..<3001)
    #expect(walSize(db) <= SQLiteRoomStore.journalSizeLimit, "the next commit started the log again and cut it: \(walSize(db))")
    #expect(try store.loadRooms().count == 3001)
}

@Test func aLogLeftBehindIsCheckpointedAndTruncatedWhenTheStoreOpens() throws {
    let db = TempDatabase()
    defer { db.remove() }
    let crashed = try SQLiteRoomStore(path: db.path, autoCheckpoint: false)
    try fill(crashed, rooms: 0..<400)
    #expect(walSize(db) > 2 * 1024 * 1024, "\(walSize(db))")
    // The crashed server's connection never closes (no checkpoint on close).
    let restarted = try SQLiteRoomStore(path: db.path, autoCheckpoint: false)
    #expect(walSize(db) == 0)
    #expect(try restarted.loadRooms().count == 400)
    withExtendedLifetime(crashed) {}
}

@Test func aGroupRoomAndItsMembersSurviveReopeningTheStore() throws {
    let db = TempDatabase()
    defer { db.remove() }
    let now = UnixTime(seconds: 1_790_000_000)
    let code = try #require(JoinCode("123456"))
    var roomID: RoomID?
    do {
        let registry = try RoomRegistry(store: try SQLiteRoomStore(path: db.path), random: SeededRandom(seed: 1))
        _ = try registry.create(joinCode: code, client1: DeviceID("alice-device")!, expiresInSeconds: 600, groupMax: 5, now: now)
        for device in ["bob-device", "carol-device"] {
            if case .accepted(let id) = try registry.accept(joinCode: code, client2: DeviceID(device)!, address: "x", now: now) { roomID = id }
        }
    }
    let registry = try RoomRegistry(store: try SQLiteRoomStore(path: db.path), random: SeededRandom(seed: 2))
    let id = try #require(roomID)
    let roster = try #require(registry.roster(id: id, now: now))
    #expect(roster.max == 5)
    #expect(roster.members.map(\.deviceID.rawValue) == ["alice-device", "bob-device", "carol-device"])
    #expect(Set(roster.members.map(\.memberID)).count == 3)
    #expect(try registry.accept(joinCode: code, client2: DeviceID("bob-device")!, address: "x", now: now) == .accepted(id))
}

/// A database written by schema 1 (before group rooms) opens with its rooms
/// unchanged, and takes group rooms afterwards.
@Test func aVersionOneDatabaseGainsGroupColumnsAndKeepsItsRooms() throws {
    let db = TempDatabase()
    defer { db.remove() }
    var handle: OpaquePointer?
    #expect(sqlite3_open(db.path, &handle) == SQLITE_OK)
    let roomid = String(repeating: "cd", count: 24)
    for sql in [
        "CREATE TABLE rooms (joinid TEXT PRIMARY KEY NOT NULL, client1 TEXT NOT NULL, client2 TEXT, roomid TEXT UNIQUE, exp_ms INTEGER NOT NULL, state INTEGER NOT NULL)",
        "INSERT INTO rooms VALUES ('654321', 'alice-device', 'bob-device', '\(roomid)', 1790000600000, 1)",
        "PRAGMA user_version = 1",
    ] {
        #expect(sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK)
    }
    sqlite3_close(handle)
    let store = try SQLiteRoomStore(path: db.path)
    let rooms = try store.loadRooms()
    #expect(rooms.count == 1)
    #expect(rooms.first?.roomID?.rawValue == roomid && rooms.first?.group == nil && rooms.first?.client2?.rawValue == "bob-device")
    let group = Room(
        joinCode: JoinCode("111111")!, client1: DeviceID("carol-device")!, expiry: UnixTime(seconds: 1_790_000_600),
        group: Room.Group(max: 3, members: [.init(deviceID: DeviceID("carol-device")!, memberID: MemberID("0123456789abcdef")!)]))
    try store.save(group)
    #expect(try SQLiteRoomStore(path: db.path).loadRooms().first { $0.joinCode.rawValue == "111111" } == group)
}

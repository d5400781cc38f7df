import CShims
import CSQLite
import Signaling

/// Rooms in an SQLite file, so they survive a server restart.
///
/// WAL journal with `synchronous=NORMAL` (a commit is durable against a
/// process crash, and the log is synced at checkpoints), a log that cannot
/// grow without bound (see ``init(path:busyTimeoutMilliseconds:autoCheckpoint:)``), a busy timeout so a
/// second process (a backup, `sqlite3` shell) does not turn writes into
/// errors, prepared statements compiled once, and the schema version in
/// `PRAGMA user_version` so later versions can migrate.
public final class SQLiteRoomStore: RoomStore {
    /// 2 added `group_max` and `members` (group rooms); a version-1 file
    /// gains them on open, its rooms unchanged.
    public static let schemaVersion: Int32 = 2

    private let db: OpaquePointer
    private let insert: OpaquePointer
    private let remove: OpaquePointer
    private let selectAll: OpaquePointer

    /// Pages in the log past which a commit checkpoints itself: with
    /// `autoCheckpoint` SQLite's default (about 4 MB); without it, a backstop
    /// in case `WALCheckpointer` falls behind a burst of writes (about 8 MB).
    static let autoCheckpointPages = 1000
    static let backstopCheckpointPages = 2000
    /// Once a checkpoint has copied the whole log back, the next commit
    /// starts the log again and cuts its file to this size.
    static let journalSizeLimit = 1024 * 1024

    /// With `autoCheckpoint` off, commits wait for a WAL checkpoint (and its
    /// fsync) only when `WALCheckpointer` falls far behind; it checkpoints
    /// in the background. A log left by a crash, or by a version that never
    /// checkpointed, is checkpointed and truncated here, before any use.
    public init(path: String, busyTimeoutMilliseconds: Int32 = 5000, autoCheckpoint: Bool = true) throws(RoomStoreError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw RoomStoreError(message)
        }
        db = handle
        var prepared: [OpaquePointer] = []
        do {
            sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
            try SQLiteRoomStore.exec(db, "PRAGMA journal_mode=WAL")
            try SQLiteRoomStore.exec(db, "PRAGMA synchronous=NORMAL")
            let pages = autoCheckpoint ? Self.autoCheckpointPages : Self.backstopCheckpointPages
            try SQLiteRoomStore.exec(db, "PRAGMA wal_autocheckpoint=\(pages)")
            try SQLiteRoomStore.exec(db, "PRAGMA journal_size_limit=\(Self.journalSizeLimit)")
            try SQLiteRoomStore.migrate(db)
            // Another process may be reading (a backup): then the log stays
            // for the checkpoints to come, which is no reason to fail.
            _ = sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nil, nil, nil)
            for sql in [
                "INSERT OR REPLACE INTO rooms (joinid, client1, client2, roomid, exp_ms, state, group_max, members) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                "DELETE FROM rooms WHERE joinid = ?1",
                "SELECT joinid, client1, client2, roomid, exp_ms, state, group_max, members FROM rooms",
            ] {
                prepared.append(try SQLiteRoomStore.prepare(db, sql))
            }
        } catch {
            // SQLite's own words ("file is not a database") say more than
            // which statement failed; the caller names the file.
            let code = sqlite3_errcode(handle)
            let failure = code == SQLITE_OK || code == SQLITE_DONE ? error : RoomStoreError(String(cString: sqlite3_errmsg(handle)))
            for statement in prepared { sqlite3_finalize(statement) }
            sqlite3_close(handle)
            throw failure
        }
        insert = prepared[0]
        remove = prepared[1]
        selectAll = prepared[2]
    }

    deinit {
        sqlite3_finalize(insert)
        sqlite3_finalize(remove)
        sqlite3_finalize(selectAll)
        sqlite3_close(db)
    }

    /// The journal mode in effect (`wal` once opened), for tests and `doctor`.
    public func journalMode() throws(RoomStoreError) -> String {
        let statement = try SQLiteRoomStore.prepare(db, "PRAGMA journal_mode")
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else {
            throw error("journal_mode")
        }
        return String(cString: text)
    }

    public func loadRooms() throws(RoomStoreError) -> [Room] {
        defer { sqlite3_reset(selectAll) }
        var rooms: [Room] = []
        while true {
            let rc = sqlite3_step(selectAll)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw error("load") }
            // A row this version cannot read (edited by hand, say) is skipped,
            // not fatal: the rest of the rooms still come back.
            guard let code = column(0).flatMap({ JoinCode($0) }), let client1 = column(1).flatMap(DeviceID.init),
                let state = Room.State(rawValue: Int(sqlite3_column_int64(selectAll, 5)))
            else { continue }
            var group: Room.Group?
            let groupMax = Int(sqlite3_column_int64(selectAll, 6))
            if groupMax != 0 {
                guard GroupSize.range.contains(groupMax), let members = column(7).flatMap(Self.members), !members.isEmpty else { continue }
                group = Room.Group(max: groupMax, members: members)
            }
            rooms.append(
                Room(
                    joinCode: code, client1: client1, client2: column(2).flatMap(DeviceID.init),
                    roomID: column(3).flatMap(RoomID.init),
                    expiry: UnixTime(milliseconds: sqlite3_column_int64(selectAll, 4)), state: state, group: group))
        }
        return rooms
    }

    public func save(_ room: Room) throws(RoomStoreError) {
        defer { sqlite3_reset(insert); sqlite3_clear_bindings(insert) }
        bind(insert, 1, room.joinCode.rawValue)
        bind(insert, 2, room.client1.rawValue)
        bind(insert, 3, room.client2?.rawValue)
        bind(insert, 4, room.roomID?.rawValue)
        sqlite3_bind_int64(insert, 5, room.expiry.milliseconds)
        sqlite3_bind_int64(insert, 6, Int64(room.state.rawValue))
        sqlite3_bind_int64(insert, 7, Int64(room.group?.max ?? 0))
        bind(insert, 8, room.group.map(Self.text))
        guard sqlite3_step(insert) == SQLITE_DONE else { throw error("save") }
    }

    public func delete(_ joinCodes: [JoinCode]) throws(RoomStoreError) {
        guard !joinCodes.isEmpty else { return }
        let batch = joinCodes.count > 1
        if batch { try SQLiteRoomStore.exec(db, "BEGIN IMMEDIATE") }
        for code in joinCodes {
            bind(remove, 1, code.rawValue)
            let rc = sqlite3_step(remove)
            sqlite3_reset(remove)
            sqlite3_clear_bindings(remove)
            if rc != SQLITE_DONE {
                let failure = error("delete")
                if batch { try? SQLiteRoomStore.exec(db, "ROLLBACK") }
                throw failure
            }
        }
        if batch { try SQLiteRoomStore.exec(db, "COMMIT") }
    }

    // MARK: - SQLite plumbing

    private static func migrate(_ db: OpaquePointer) throws(RoomStoreError) {
        let statement = try prepare(db, "PRAGMA user_version")
        let version = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int(statement, 0) : 0
        sqlite3_finalize(statement)
        guard version < schemaVersion else {
            if version > schemaVersion { throw RoomStoreError("database schema \(version) is newer than this server (\(schemaVersion))") }
            return
        }
        try exec(db, "BEGIN IMMEDIATE")
        do {
            try exec(
                db,
                """
                CREATE TABLE IF NOT EXISTS rooms (
                    joinid TEXT PRIMARY KEY NOT NULL,
                    client1 TEXT NOT NULL,
                    client2 TEXT,
                    roomid TEXT UNIQUE,
                    exp_ms INTEGER NOT NULL,
                    state INTEGER NOT NULL
                )
                """)
            // Version 1 (or a fresh file, created above in its shape) gains
            // the group columns; 0 marks a two-member room.
            try exec(db, "ALTER TABLE rooms ADD COLUMN group_max INTEGER NOT NULL DEFAULT 0")
            try exec(db, "ALTER TABLE rooms ADD COLUMN members TEXT")
            try exec(db, "PRAGMA user_version = \(schemaVersion)")
            try exec(db, "COMMIT")
        } catch {
            try? exec(db, "ROLLBACK")
            throw error
        }
    }

    private static func exec(_ db: OpaquePointer, _ sql: String) throws(RoomStoreError) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw RoomStoreError("\(sql.prefix(40)): \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    private static func prepare(_ db: OpaquePointer, _ sql: String) throws(RoomStoreError) -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw RoomStoreError("prepare: \(String(cString: sqlite3_errmsg(db)))")
        }
        return statement
    }

    private func bind(_ statement: OpaquePointer, _ index: Int32, _ text: String?) {
        guard let text else {
            sqlite3_bind_null(statement, index)
            return
        }
        // SQLITE_TRANSIENT: SQLite copies the bytes, which only live for this call.
        sqlite3_bind_text(statement, index, text, -1, cshims_sqlite_transient())
    }

    /// A group's members as `device:member` pairs joined by commas (neither
    /// id can hold `:` or `,`), in admission order.
    static func text(_ group: Room.Group) -> String {
        group.members.map { "\($0.deviceID.rawValue):\($0.memberID.rawValue)" }.joined(separator: ",")
    }

    static func members(_ text: String) -> [Room.Group.Member]? {
        var members: [Room.Group.Member] = []
        for pair in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = pair.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let device = DeviceID(String(parts[0])), let member = MemberID(String(parts[1])) else { return nil }
            members.append(.init(deviceID: device, memberID: member))
        }
        return members.count <= GroupSize.range.upperBound ? members : nil
    }

    private func column(_ index: Int32) -> String? {
        guard let text = sqlite3_column_text(selectAll, index) else { return nil }
        return String(cString: text)
    }

    private func error(_ operation: String) -> RoomStoreError {
        RoomStoreError("\(operation): \(String(cString: sqlite3_errmsg(db)))")
    }
}

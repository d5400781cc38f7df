import Wire

/// The decrypted contents of the store: saved sessions and the queue of device
/// ids whose server purge has yet to succeed. No message history, ever.
///
/// A plain value: `SessionStore.withLockedStore` hands it out for mutation and
/// writes it back.
public struct StoreContents: Equatable, Sendable {
    public private(set) var sessions: [SessionRecord]
    /// Server URL → device ids to send to `POST /api/user/purge` next time.
    public var pendingPurges: [String: [String]]

    public init(sessions: [SessionRecord] = [], pendingPurges: [String: [String]] = [:]) {
        self.sessions = sessions
        self.pendingPurges = pendingPurges
    }

    /// The sessions in the order they were added.
    public func list() -> [SessionRecord] { sessions }

    public func find(name: String) -> SessionRecord? { sessions.first { $0.name == name } }

    /// Adds a session; its name must be valid and not taken.
    public mutating func add(_ record: SessionRecord) throws(SessionStoreError) {
        try Self.validate(name: record.name)
        guard find(name: record.name) == nil else { throw .nameInUse(record.name) }
        sessions.append(record)
    }

    public mutating func rename(_ old: String, to new: String) throws(SessionStoreError) {
        guard let i = sessions.firstIndex(where: { $0.name == old }) else { throw .unknownSession(old) }
        if old == new { return }
        try Self.validate(name: new)
        guard find(name: new) == nil else { throw .nameInUse(new) }
        sessions[i].name = new
    }

    /// Removes a session and returns it; the caller purges its device ids from
    /// the server (and queues them with ``queuePurge(server:deviceIDs:)`` if that fails).
    @discardableResult
    public mutating func remove(name: String) throws(SessionStoreError) -> SessionRecord {
        guard let i = sessions.firstIndex(where: { $0.name == name }) else { throw .unknownSession(name) }
        return sessions.remove(at: i)
    }

    /// Replaces a session's mutable fields in place (status, roomID, device ids…).
    public mutating func update(name: String, _ change: (inout SessionRecord) -> Void) throws(SessionStoreError) {
        guard let i = sessions.firstIndex(where: { $0.name == name }) else { throw .unknownSession(name) }
        var record = sessions[i]
        change(&record)
        record.name = name  // renaming goes through rename(), which checks uniqueness
        sessions[i] = record
    }

    public mutating func updateStatus(name: String, to status: SessionRecord.Status, roomID: String? = nil)
        throws(SessionStoreError)
    {
        try update(name: name) { r in
            r.status = status
            if let roomID { r.roomID = roomID }
        }
    }

    public mutating func queuePurge(server: String, deviceIDs: [String]) {
        guard !deviceIDs.isEmpty else { return }
        var ids = pendingPurges[server] ?? []
        for id in deviceIDs where !ids.contains(id) { ids.append(id) }
        pendingPurges[server] = ids
    }

    /// Drops purged ids from the queue (after a successful retry).
    public mutating func purgeSucceeded(server: String, deviceIDs: [String]) {
        guard let ids = pendingPurges[server] else { return }
        let left = ids.filter { !deviceIDs.contains($0) }
        pendingPurges[server] = left.isEmpty ? nil : left
    }

    /// The first name of the form `base`, `base-2`, `base-3`… not yet taken.
    public func uniqueName(base: String) -> String {
        if find(name: base) == nil { return base }
        var n = 2
        while find(name: "\(base)-\(n)") != nil { n += 1 }
        return "\(base)-\(n)"
    }

    /// Throws `.invalidName` unless `name` is 1…64 printable characters without leading or trailing spaces.
    public static func validate(name: String) throws(SessionStoreError) {
        let scalars = name.unicodeScalars
        guard !scalars.isEmpty, name.count <= 64,
            scalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F && !(0x80...0x9F).contains($0.value) }),
            name.first != " ", name.last != " "
        else { throw .invalidName(name) }
    }

    // MARK: JSON payload (sealed; see StoreFormat)

    var json: JSON {
        let purges: [(String, JSON)] = pendingPurges.keys.sorted().map { key in
            (key, .array((pendingPurges[key] ?? []).map(JSON.string)))
        }
        return .object([
            "sessions": .array(sessions.map(\.json)),
            "pendingPurges": .object(purges),
        ])
    }

    init?(json: JSON) {
        guard let list = json["sessions"]?.arrayValue else { return nil }
        var sessions: [SessionRecord] = []
        for item in list {
            guard let record = SessionRecord(json: item) else { return nil }
            sessions.append(record)
        }
        var purges: [String: [String]] = [:]
        switch json["pendingPurges"] {
        case nil: break
        case .object(let members)?:
            for (server, value) in members {
                guard let ids = value.arrayValue else { return nil }
                var strings: [String] = []
                for id in ids {
                    guard let s = id.stringValue else { return nil }
                    strings.append(s)
                }
                purges[server] = strings
            }
        default: return nil
        }
        self.init(sessions: sessions, pendingPurges: purges)
    }
}

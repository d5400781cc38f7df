import Wire

/// One saved chat session: enough to resume it, never its messages.
public struct SessionRecord: Equatable, Sendable {
    public enum Role: String, Sendable, CaseIterable { case creator, joiner }
    /// Inviso's lifecycle: a created room waits (`pending`) until a peer
    /// accepts the code (`accepted`); leaving or expiry closes it (`closed`).
    public enum Status: String, Sendable, CaseIterable { case pending, accepted, closed }

    /// Unique, user-visible name.
    public var name: String
    public var serverURL: String
    /// The 6-digit join code.
    public var code: String
    /// Known once the room is accepted.
    public var roomID: String?
    public var role: Role
    public var status: Status
    /// UNIX seconds.
    public var created: Int
    /// UNIX seconds (the server's `exp`); nil when unknown (a joiner is never told).
    public var expires: Int?
    /// The session's ephemeral device ids, newest last (never reused).
    public var deviceIDs: [String]

    public init(
        name: String, serverURL: String, code: String, roomID: String? = nil, role: Role,
        status: Status = .pending, created: Int, expires: Int?, deviceIDs: [String]
    ) {
        self.name = name
        self.serverURL = serverURL
        self.code = code
        self.roomID = roomID
        self.role = role
        self.status = status
        self.created = created
        self.expires = expires
        self.deviceIDs = deviceIDs
    }

    var json: JSON {
        .object([
            "name": .string(name), "server": .string(serverURL), "code": .string(code),
            "roomid": roomID.map(JSON.string), "role": .string(role.rawValue),
            "status": .string(status.rawValue), "created": JSON(created), "expires": expires.map { JSON($0) },
            "deviceIds": .array(deviceIDs.map(JSON.string)),
        ])
    }

    init?(json: JSON) {
        guard let name = json["name"]?.stringValue, let server = json["server"]?.stringValue,
            let code = json["code"]?.stringValue,
            let role = json["role"]?.stringValue.flatMap(Role.init(rawValue:)),
            let status = json["status"]?.stringValue.flatMap(Status.init(rawValue:)),
            let created = json["created"]?.intValue,
            let ids = json["deviceIds"]?.arrayValue
        else { return nil }
        var deviceIDs: [String] = []
        for id in ids {
            guard let s = id.stringValue else { return nil }
            deviceIDs.append(s)
        }
        let expires: Int?
        switch json["expires"] {
        case nil, .null?: expires = nil
        case let value?:
            guard let seconds = value.intValue else { return nil }
            expires = seconds
        }
        let roomID: String?
        switch json["roomid"] {
        case nil, .null?: roomID = nil
        case .string(let r)?: roomID = r
        default: return nil
        }
        self.init(
            name: name, serverURL: server, code: code, roomID: roomID, role: role, status: status,
            created: created, expires: expires, deviceIDs: deviceIDs)
    }
}

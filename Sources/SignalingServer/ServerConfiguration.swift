/// Everything `chatcli serve` can be told (WireProtocol §4).
public struct ServerConfiguration: Sendable {
    public var host = "0.0.0.0"
    public var port: UInt16 = 8080
    public var stunPort: UInt16 = 3478
    /// The SQLite file; `chatcli serve` defaults it to `RoomDatabasePath.standard`.
    public var databasePath = "chatcli-rooms.db"
    public var tlsCertificateFile: String?
    public var tlsKeyFile: String?
    public var turnURLs: [String] = []
    public var turnSecret: [UInt8]?
    /// TURN credentials only for room members who name their room.
    public var turnMembersOnly = false
    public var missedAcceptsPerMinute = 10
    public var logAddresses = false
    /// Rooms in memory only, no STUN responder (none in `GET /api/ice-servers`),
    /// no access log: the endpoint `chatcli create --lan` runs for its one chat.
    public var embedded = false

    public init() {}
}

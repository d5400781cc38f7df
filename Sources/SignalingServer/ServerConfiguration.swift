import Redis

/// Everything `chatcli serve` can be told (WireProtocol §4).
public struct ServerConfiguration: Sendable {
    public var host = "0.0.0.0"
    public var port: UInt16 = 8080
    public var stunPort: UInt16 = 3478
    /// The STUN port `/api/ice-servers` names when it differs from
    /// `stunPort` (a load balancer or NAT in front maps it).
    public var publicSTUNPort: UInt16?
    /// The SQLite file; `chatcli serve` defaults it to `RoomDatabasePath.standard`.
    public var databasePath = "chatcli-rooms.db"
    public var tlsCertificateFile: String?
    public var tlsKeyFile: String?
    public var turnURLs: [String] = []
    public var turnSecret: [UInt8]?
    /// TURN credentials only for room members who name their room.
    public var turnMembersOnly = false
    /// The embedded TURN relay (on by default; nil with `--no-turn` or an
    /// external relay given by `--turn-url`).
    public var relay: RelaySettings? = RelaySettings()
    /// `GET /metrics` (Prometheus text) on this address only; nil: no metrics.
    public var metricsListen: String?
    /// One JSON object per log line instead of logfmt (`--log-format json`).
    public var logJSON = false
    public var missedAcceptsPerMinute = 10
    /// Connections and room creations per client (`--connection-limit`, `--create-limit`).
    public var clientLimits = ClientLimits.Settings()
    /// Live rooms above which `create` answers `503 code_space_full` (`--max-rooms`).
    public var maxRooms = RoomRegistry.defaultMaxRooms
    /// Output one connection may have waiting before the server stops
    /// reading it (HTTP) or closes it (a WebSocket, whose frames cannot wait).
    public var outputLimitPerConnection = 256 * 1024
    /// Output all connections together may have waiting; past it, every
    /// connection with any output waiting is treated as over its own limit.
    public var outputBudget = 32 * 1024 * 1024
    /// An HTTP connection whose output stays over its limit this long is closed.
    public var backedUpTimeout = Duration.seconds(30)
    public var logAddresses = false
    /// `--cors-origin`: a page hosted elsewhere may call the REST API (off by default).
    public var cors: CORSPolicy?
    /// Load balancers whose `X-Forwarded-For` names the client (`--trusted-proxy`).
    public var trustedProxies: [String] = []
    /// Rooms, seats and relays in Redis (`serve --redis`) instead of SQLite.
    public var redis: RedisConnection.Settings?
    /// Prefix of every Redis key, so one Redis can serve several clusters.
    public var redisKeyPrefix = "chatcli:"
    /// Rooms in memory only, no STUN responder (none in `GET /api/ice-servers`),
    /// no access log: the endpoint `chatcli create --lan` runs for its one chat.
    public var embedded = false

    public init() {}
}

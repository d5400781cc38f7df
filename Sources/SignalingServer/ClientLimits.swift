/// The limits per client that keep one client from exhausting the server
/// for everyone else: how many connections it holds open at once, and how
/// many rooms it creates per hour (each holds a code for up to a day).
/// The third, wrong guesses, lives with the rooms (``RoomRegistry``).
///
/// A client is a key from ``ClientAddress``: an IPv4 address or an IPv6
/// /64, or the forwarded address behind a trusted proxy. The defaults are
/// far above what a household behind one NAT does (a browser opens up to
/// six connections per server, a chat one WebSocket and one long poll) and
/// far below what would crowd others out. Sans-IO: time comes in as `now`.
/// On a cluster each instance counts for itself.
public struct ClientLimits: Sendable {
    public struct Settings: Sendable, Equatable {
        /// Connections (HTTP or WebSocket) one client may hold open at once.
        public var connectionsPerClient = 100
        /// Rooms one client may create per hour (409 and 400 answers count:
        /// they are attempts too).
        public var roomsPerClientPerHour = 60

        public init() {}
    }

    public let settings: Settings
    private var connections: [String: Int] = [:]
    private var creations: SlidingWindowLimiter

    public init(_ settings: Settings = Settings()) {
        self.settings = settings
        creations = SlidingWindowLimiter(limit: settings.roomsPerClientPerHour, windowSeconds: 3600)
    }

    /// Counts a new connection; false (and not counted) when the client
    /// already holds `connectionsPerClient`.
    public mutating func admitConnection(_ client: String) -> Bool {
        let open = connections[client, default: 0]
        guard open < settings.connectionsPerClient else { return false }
        connections[client] = open + 1
        return true
    }

    /// A connection counted by `admitConnection` closed.
    public mutating func releaseConnection(_ client: String) {
        guard let open = connections[client] else { return }
        connections[client] = open > 1 ? open - 1 : nil
    }

    public func openConnections(_ client: String) -> Int { connections[client, default: 0] }

    /// Counts a room creation and returns nil, or returns the seconds the
    /// client must wait (nothing counted) when it has used its hour.
    public mutating func admitCreate(_ client: String, now: UnixTime) -> Int64? {
        if let wait = creations.retryAfter(client: client, now: now) { return wait }
        creations.record(client: client, now: now)
        return nil
    }

    /// Forgets clients whose creations are all older than an hour.
    public mutating func sweep(now: UnixTime) { creations.sweep(now: now) }

    /// Clients remembered for the creation limit (memory is bounded by it).
    public var trackedCreators: Int { creations.trackedClientCount }
}

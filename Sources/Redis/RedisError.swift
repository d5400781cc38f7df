/// Why a Redis command has no answer.
public enum RedisError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not connected (yet, or any more); the command was not sent or its
    /// answer was lost with the connection.
    case unavailable(String)
    /// The server answered with an error reply (`-ERR ...`).
    case server(String)

    public var description: String {
        switch self {
        case .unavailable(let reason): return "Redis is unavailable: \(reason)"
        case .server(let message): return "Redis error: \(message)"
        }
    }
}

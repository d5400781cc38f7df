import Wire

/// What a chat session reports to its user: printed as PROTOCOL §4 JSON lines
/// with `--json`, or as sentences for a person.
public enum ChatEvent: Equatable, Sendable {
    case code(String, expires: String?)
    case waiting
    case peerJoined
    case peerLeft
    case error(ClientError)
    case closed
    /// Progress for a person (never printed in `--json` mode).
    case progress(String)

    public var json: JSON? {
        switch self {
        case .code(let code, let expires): return .object(["event": "code", "code": .string(code), "expires": expires.map(JSON.string)])
        case .waiting: return ["event": "waiting"]
        case .peerJoined: return ["event": "peer_joined"]
        case .peerLeft: return ["event": "peer_left"]
        case .error(let e): return ["event": "error", "error": .string(e.code), "message": .string(e.message)]
        case .closed: return ["event": "closed"]
        case .progress: return nil
        }
    }
}

import PeerConnection
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
    /// ICE found a path (before DTLS).
    case ice(path: String, local: String, remote: String, rttMilliseconds: Int?)
    /// The encrypted chat channel is open.
    case connected(ConnectionInfo)
    /// The channel is back after the path was lost (`after`: how long it was down).
    /// In `--json` it is another `connected` event, with the path now in use.
    case reconnected(ConnectionInfo, after: Duration?)
    case message(String)
    /// A local line that could not be sent (`message_too_large`); the chat goes on.
    case notSent(code: String, message: String)
    /// Progress for a person (never printed in `--json` mode).
    case progress(String)
    /// The peer opened the `ctl` extras channel (interactive mode only).
    case controlReady
    /// A `ctl` message from the peer (interactive mode only).
    case control(ControlMessage)

    public var json: JSON? {
        switch self {
        case .code(let code, let expires): return .object(["event": "code", "code": .string(code), "expires": expires.map(JSON.string)])
        case .waiting: return ["event": "waiting"]
        case .peerJoined: return ["event": "peer_joined"]
        case .peerLeft: return ["event": "peer_left"]
        case .error(let e): return ["event": "error", "error": .string(e.code), "message": .string(e.message)]
        case .closed: return ["event": "closed"]
        case .ice(let path, let local, let remote, let rtt):
            return .object(["event": "ice", "state": "connected", "path": .string(path), "local": .string(local),
                            "remote": .string(remote), "rtt_ms": rtt.map { JSON($0) } ?? .null])
        case .connected(let info), .reconnected(let info, _):
            return .object(["event": "connected", "path": .string(info.path), "local": .string(info.local),
                            "remote": .string(info.remote), "sas": .string(info.sas), "rtt_ms": info.rttMilliseconds.map { JSON($0) } ?? .null])
        case .message(let text): return ["event": "message", "text": .string(text)]
        case .notSent(let code, let message): return ["event": "error", "error": .string(code), "message": .string(message)]
        case .progress, .controlReady, .control: return nil
        }
    }
}

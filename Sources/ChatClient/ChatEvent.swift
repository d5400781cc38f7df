import PeerConnection
import Wire

/// What a chat session reports to its user: printed as `--json` lines (WireProtocol.md §4)
/// with `--json`, or as sentences for a person.
public enum ChatEvent: Equatable, Sendable {
    /// `server`: the URL the peer must pass with `--server`, when not the default.
    case code(String, expires: String?, server: String?)
    case waiting
    case peerJoined
    case peerLeft
    /// The peer's process dropped out of the room (crash, lost network);
    /// what is typed meanwhile waits for it (`peer_away`, an extension).
    case peerAway
    /// The peer is back in the room after `peerAway` (`peer_back`).
    case peerBack
    /// Connecting, and the peer has said nothing for `ChatSession.silenceNotice`
    /// (frozen, asleep): chatcli gives up in `waitSeconds` unless it answers
    /// (`{"event":"peer_not_answering","wait_s":N}`).
    case peerNotAnswering(waitSeconds: Int)
    /// In a group: this member is `Outbox.limit` bytes behind; lines typed
    /// now are not kept for it until it catches up (`peer_behind`, an extension).
    case peerBehind(limitBytes: Int)
    /// It caught up; `missed` of the lines typed meanwhile never reached it (`peer_caught_up`).
    case peerCaughtUp(missed: Int)
    /// The peer kept no copy of `lines` of its lines for us (we were too far
    /// behind): they are missing right here (`gap`).
    case gap(lines: Int)
    /// Messages typed that never reached the peer, when the chat ends
    /// (`{"event":"error","error":"undelivered","count":N}`).
    case undelivered(Int)
    /// A note for the person (stderr in plain and `--json` modes; drawn
    /// above the prompt when interactive, never into it).
    case notice(String)
    case error(ClientError)
    case closed
    /// ICE found a path (before DTLS).
    case ice(path: String, local: String, remote: String, rttMilliseconds: Int?)
    /// The encrypted chat channel is open; `auth` says whether the code proved the peer.
    case connected(ConnectionInfo, auth: PeerAuth = .none)
    /// The channel is back after the path was lost (`after`: how long it was down).
    /// In `--json` it is another `connected` event, with the path now in use.
    case reconnected(ConnectionInfo, after: Duration?, auth: PeerAuth = .none)
    /// The code did not prove the connection's peer: nothing crosses until
    /// it is accepted (ChatSession+Trust). `sas`: the words to compare.
    case unproven(sas: String, reason: UnprovenReason)
    case message(String)
    /// A local line that could not be sent (`message_too_large`); the chat goes on.
    case notSent(code: String, message: String)
    /// Progress for a person (never printed in `--json` mode).
    case progress(String)
    /// The peer opened the `ctl` extras channel (interactive mode only).
    case controlReady
    /// A `ctl` message from the peer (interactive mode only).
    case control(ControlMessage)
    /// Something the peer sent was refused (`peer_message_too_large`); the
    /// chat goes on.
    case refused(code: String, message: String)
    /// In a group room: `event` of the pairwise chat with member `id`
    /// (`name`: its display name as it sent it, peer text). In `--json`,
    /// `peer_*` events become `member_*`, `unproven` `member_unproven`, and
    /// each carries `"member"` and `"name"` (a message `"from"` and `"name"`).
    indirect case member(id: String, name: String, event: ChatEvent)

    static func connectedJSON(_ info: ConnectionInfo, auth: PeerAuth) -> JSON {
        .object(["event": "connected", "path": .string(info.path), "local": .string(info.local),
                 "remote": .string(info.remote), "sas": .string(info.sas), "rtt_ms": info.rttMilliseconds.map { JSON($0) } ?? .null,
                 "auth": .string(auth.rawValue)])
    }

    /// The peer sent a chat message over `a=max-message-size`.
    public static func peerMessageTooLargeSentence(limit: Int) -> String {
        "Your peer sent a message larger than \(limit) bytes, the most a chat message may have: it was not shown, "
            + "your peer's side was told, and the chat goes on."
    }

    public static func peerNotAnsweringSentence(waitSeconds: Int) -> String {
        "Your peer is not answering (its app may be frozen or its machine asleep): chatcli waits \(waitSeconds) s more for it, then gives up."
    }

    public static func undeliveredSentence(_ n: Int) -> String {
        n == 1 ? "1 message you typed never reached your peer." : "\(n) messages you typed never reached your peer."
    }

    public var json: JSON? {
        switch self {
        case .code(let code, let expires, _):
            // `locator`: the six digits alone, for peers that cannot run the PAKE (Inviso, browsers).
            return .object(["event": "code", "code": .string(code), "locator": .string(String(code.prefix(6))),
                            "expires": expires.map(JSON.string)])
        case .waiting: return ["event": "waiting"]
        case .peerJoined: return ["event": "peer_joined"]
        case .peerLeft: return ["event": "peer_left"]
        case .peerAway: return ["event": "peer_away"]
        case .peerBack: return ["event": "peer_back"]
        case .peerBehind(let limit): return ["event": "peer_behind", "limit_bytes": JSON(limit)]
        case .peerCaughtUp(let missed): return ["event": "peer_caught_up", "missed": JSON(missed)]
        case .gap(let lines): return ["event": "gap", "lines": JSON(lines)]
        case .peerNotAnswering(let wait):
            return ["event": "peer_not_answering", "wait_s": JSON(wait), "message": .string(Self.peerNotAnsweringSentence(waitSeconds: wait))]
        case .undelivered(let n):
            return ["event": "error", "error": "undelivered", "count": JSON(n), "message": .string(Self.undeliveredSentence(n))]
        case .error(let e): return ["event": "error", "error": .string(e.code), "message": .string(e.message)]
        case .closed: return ["event": "closed"]
        case .ice(let path, let local, let remote, let rtt):
            return .object(["event": "ice", "state": "connected", "path": .string(path), "local": .string(local),
                            "remote": .string(remote), "rtt_ms": rtt.map { JSON($0) } ?? .null])
        case .connected(let info, let auth):
            return Self.connectedJSON(info, auth: auth)
        case .reconnected(let info, _, let auth):
            return Self.connectedJSON(info, auth: auth)
        case .message(let text): return ["event": "message", "text": .string(text)]
        case .unproven(let sas, let reason):
            return ["event": "unproven", "sas": .string(sas), "reason": .string(reason.rawValue), "message": .string(reason.explanation)]
        case .notSent(let code, let message): return ["event": "error", "error": .string(code), "message": .string(message)]
        case .progress, .notice, .controlReady, .control: return nil
        case .refused(let code, let message): return ["event": "error", "error": .string(code), "message": .string(message)]
        case .member(let id, let name, let event):
            return Self.memberJSON(id: id, name: name, event.json)
        }
    }

    /// A pair's event as the group's: renamed, and who it is about.
    static func memberJSON(id: String, name: String, _ inner: JSON?) -> JSON? {
        guard case .object(var fields)? = inner, let kind = inner?["event"]?.stringValue else { return nil }
        let renamed = ["peer_joined": "member_joined", "peer_left": "member_left", "peer_away": "member_away",
                       "peer_back": "member_back", "unproven": "member_unproven", "peer_not_answering": "member_not_answering",
                       "peer_behind": "member_behind", "peer_caught_up": "member_caught_up"]
        fields.removeAll { $0.0 == "event" }
        let who: [(String, JSON)] = kind == "message" || kind == "gap" ? [("from", .string(id)), ("name", .string(name))]
                                                     : [("member", .string(id)), ("name", .string(name))]
        return .object([("event", .string(renamed[kind] ?? kind))] + who + fields)
    }
}

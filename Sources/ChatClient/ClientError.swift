import PeerConnection

/// Everything that can end a create/join, each with one sentence a user can
/// act on (the CLI prints `message` and exits 1) and a stable `code` for
/// `--json` error events.
public enum ClientError: Error, Equatable, Sendable {
    case invalidCode(String)
    case unreachable(server: String, reason: String)
    case tls(server: String, reason: String)
    case timeout(String)
    case codeNotFound
    case codeAlreadyUsed
    case codeExpired
    case rateLimited(retryAfter: Int?)
    case roomNotFound
    case roomFull
    /// `create --group` on a server that made a two-member room (Inviso, an old chatcli).
    case noGroupRooms
    case server(status: Int, code: String?, action: String)
    /// The server answered something unusable (REST, HTTP or the WebSocket upgrade).
    case protocolViolation(String)
    /// The peer's offer or answer (its SDP) cannot be used: the peer's app is at fault, not the server.
    case peerUnusable(String)
    /// This machine could not provide what the connection needs (no UDP socket could be bound).
    case localSystem(String)
    case connectionLost(String)
    case interrupted
    case peerConnectionFailed(PeerConnectionError)
    /// `--relay-only`, and no TURN server to relay through.
    case noTURN(NoTURN)
    /// The PAKE failed: another code, or someone in the middle.
    case pakeFailed
    /// The peer of a chat presented another certificate than the one pinned
    /// for it (`session`: the saved session's name, if it has one).
    case peerChanged(session: String?)
    /// The code did not prove the peer and the script did not say
    /// `--accept-unproven`: nothing was sent or shown.
    case peerUnproven
    /// The peer said nothing for `seconds` while the connection was set up (ChatSession+Silence).
    case peerNotAnswering(seconds: Int)
    /// Local-network chat (`--lan`): discovery or advertising failed.
    case lan(LANFailure)

    public var code: String {
        switch self {
        case .invalidCode: return "invalid_code"
        case .unreachable: return "server_unreachable"
        case .tls: return "tls_failed"
        case .timeout: return "timeout"
        case .codeNotFound: return "not_found_or_expired"
        case .codeAlreadyUsed: return "already_accepted"
        case .codeExpired: return "expired"
        case .rateLimited: return "rate_limited"
        case .roomNotFound: return "room_not_found"
        case .roomFull: return "room_full"
        case .noGroupRooms: return "no_group_rooms"
        case .server: return "server_error"
        case .protocolViolation: return "protocol_error"
        case .peerUnusable: return "peer_protocol_error"
        case .localSystem: return "local_error"
        case .connectionLost: return "connection_lost"
        case .interrupted: return "interrupted"
        case .peerConnectionFailed, .noTURN: return "connection_failed"
        case .pakeFailed: return "pake_failed"
        case .peerChanged: return "peer_changed"
        case .peerUnproven: return "unproven_peer"
        case .peerNotAnswering: return "peer_not_answering"
        case .lan: return "lan_failed"
        }
    }

    public var message: String {
        switch self {
        case .invalidCode(let text):
            let shape = "a code is 6 digits and two words, like 123456-brave-calm (or the 6 digits alone)"
            switch PairingCode.parse(text) {
            case .success:
                return "'\(text)' is not a join code: \(shape)."
            case .failure(.digits(let digits)):
                let typed = String(digits.filter { $0 != " " && $0 != "-" && $0 != "\t" })
                let got = typed.filter(\.isNumber).count
                return "'\(text)' is not a join code: it must start with 6 digits, and '\(typed.isEmpty ? text : typed)' has \(got); \(shape)."
            case .failure(.unknownWord(let word, let suggestion)):
                let hint = suggestion.map { " (did you mean '\($0)'?)" } ?? ""
                return "'\(word)' is not one of the code's words\(hint): check the code your peer gave you."
            case .failure(.wordCount(let n)):
                return "'\(text)' is not a join code: it has \(n) word\(n == 1 ? "" : "s") after the digits, not 2; \(shape)."
            }
        case .unreachable(let server, let reason):
            return "Cannot reach the chatcli server at \(server) (\(reason)). Start one with 'chatcli serve', or point to one with --server URL or CHATCLI_SERVER; on the same local network, --lan needs no server (chatcli create --lan, chatcli join CODE --lan)."
        case .tls(let server, let reason):
            return "Secure connection to \(server) failed: \(reason)."
        case .timeout(let what):
            return "Timed out \(what)."
        case .codeNotFound:
            return "No chat is waiting for that code: it may be mistyped, expired, or already used. Ask your peer for a new code."
        case .codeAlreadyUsed:
            return "Someone has already joined with that code. Ask your peer for a new one ('chatcli create' for a chat, 'chatcli send' for files)."
        case .codeExpired:
            return "The code expired before anyone joined. Run 'chatcli create' for a new one."
        case .rateLimited(let retry):
            let when = retry.map { "in \($0) seconds" } ?? "later"
            return "Too many wrong codes from this network; the server asks you to wait. Try again \(when)."
        case .roomNotFound:
            return "The server no longer knows this room (it expired or was deleted)."
        case .roomFull:
            return "The room is full: every seat in it is taken."
        case .noGroupRooms:
            return "This server makes only two-person rooms (it ignored the request for a group): use a 'chatcli serve' that offers group rooms, or chat in pairs."
        case .server(let status, let code, let action):
            return "The server could not \(action) (HTTP \(status)\(code.map { ": \($0)" } ?? ""))."
        case .protocolViolation(let what):
            return "The server answered something unexpected: \(what)."
        case .peerUnusable(let what):
            return "Your peer's app sent a connection description chatcli cannot use (\(what)): ask your peer to update their app, or to try chatcli."
        case .localSystem(let what):
            return "This machine could not set up the connection (\(what)): check that a network interface is up and that the open-file limit (ulimit -n) is not exhausted."
        case .connectionLost(let what):
            return "Lost the connection to the server: \(what)."
        case .interrupted:
            return "Interrupted."
        case .peerConnectionFailed(let error):
            return "Could not connect to your peer: \(error)."
        case .noTURN(let reason):
            return "Could not connect to your peer: --relay-only needs a TURN server, and \(reason) (see 'chatcli doctor')."
        case .pakeFailed:
            return "The codes did not match, or someone may be intercepting this chat: it was ended before anything you typed was sent, and this code cannot be tried again."
        case .peerChanged(let session?):
            return "Your peer presented another certificate than the one pinned for this chat, so it may not be your peer (someone may be intercepting): nothing was sent or shown. "
                + "If your peer really started over, accept its new certificate deliberately with: chatcli resume \(session) --accept-new-peer"
        case .peerChanged(nil):
            return "Your peer presented another certificate than the one pinned for this chat, so it may not be your peer (someone may be intercepting): nothing was sent or shown. "
                + "Start a new chat with 'chatcli create' if your peer really started over."
        case .peerUnproven:
            return "The code did not prove who your peer is, so nothing was sent or shown: compare the safety words with your peer "
                + "over a call or in person, then run again with --accept-unproven (or use the whole code, like 123456-brave-calm)."
        case .peerNotAnswering(let seconds):
            return "Your peer stopped answering while connecting and said nothing for \(seconds) s (its app may be frozen or its machine asleep), "
                + "so chatcli gave up: ask your peer whether chatcli still runs there, then start again."
        case .lan(let failure):
            return failure.sentence
        }
    }
}

/// Why `--relay-only` has no TURN server to use.
public enum NoTURN: Error, Hashable, Sendable, CustomStringConvertible {
    /// `/api/ice-servers` did not answer.
    case serverSilent
    /// The server gives TURN credentials only to members of a live room, and
    /// this room is gone.
    case roomGone
    /// The server gives TURN credentials only to members of a room.
    case membersOnly
    case noneOffered
    /// None of the TURN servers offered resolved to an address.
    case unresolvable

    public var description: String {
        switch self {
        case .serverSilent: return "the signaling server did not answer"
        case .roomGone: return "the signaling server gives TURN credentials only to members of a live room, and this room is gone"
        case .membersOnly: return "the signaling server gives TURN credentials only to members of a room"
        case .noneOffered: return "the signaling server offers none"
        case .unresolvable: return "none of those offered could be resolved"
        }
    }
}

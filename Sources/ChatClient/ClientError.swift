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
    case server(status: Int, code: String?, action: String)
    case protocolViolation(String)
    case connectionLost(String)
    case interrupted
    case peerConnectionFailed(String)
    /// Local-network chat (`--lan`): discovery or advertising failed; the reason is a sentence.
    case lan(String)

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
        case .server: return "server_error"
        case .protocolViolation: return "protocol_error"
        case .connectionLost: return "connection_lost"
        case .interrupted: return "interrupted"
        case .peerConnectionFailed: return "connection_failed"
        case .lan: return "lan_failed"
        }
    }

    public var message: String {
        switch self {
        case .invalidCode(let text):
            return "'\(text)' is not a join code: a code is 6 digits, like 123456."
        case .unreachable(let server, let reason):
            return "Cannot reach the chatcli server at \(server) (\(reason)). Start one with 'chatcli serve', or point to one with --server URL or CHATCLI_SERVER; on the same local network, --lan needs no server (chatcli create --lan, chatcli join CODE --lan)."
        case .tls(let server, let reason):
            return "Secure connection to \(server) failed: \(reason)."
        case .timeout(let what):
            return "Timed out \(what)."
        case .codeNotFound:
            return "No chat is waiting for that code: it may be mistyped, expired, or already used. Ask your peer for a new code."
        case .codeAlreadyUsed:
            return "Someone has already joined with that code. Ask your peer to run 'chatcli create' for a new one."
        case .codeExpired:
            return "The code expired before anyone joined. Run 'chatcli create' for a new one."
        case .rateLimited(let retry):
            let when = retry.map { "in \($0) seconds" } ?? "later"
            return "Too many wrong codes from this network; the server asks you to wait. Try again \(when)."
        case .roomNotFound:
            return "The server no longer knows this room (it expired or was deleted)."
        case .roomFull:
            return "The room already has two members."
        case .server(let status, let code, let action):
            return "The server could not \(action) (HTTP \(status)\(code.map { ": \($0)" } ?? ""))."
        case .protocolViolation(let what):
            return "The server answered something unexpected: \(what)."
        case .connectionLost(let what):
            return "Lost the connection to the server: \(what)."
        case .interrupted:
            return "Interrupted."
        case .lan(let reason):
            return reason
        case .peerConnectionFailed(let reason):
            return "Could not connect to your peer: \(reason.hasSuffix(".") ? String(reason.dropLast()) : reason)."
        }
    }
}

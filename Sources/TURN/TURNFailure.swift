import STUN

/// Why a TURN request or the allocation failed. Typed so that owners (ICE,
/// `chatcli doctor`) and tests can tell the cases apart; the sentence for the
/// user is `description`, written in one place below.
public enum TURNFailure: Error, Hashable, Sendable {
    /// The server answered `method` with an error response (RFC 8656 §19
    /// lists the codes); `code` is nil when the response carried none.
    case rejected(method: STUNMethod, code: Int?, reason: String)
    /// A 401 without a usable REALM and NONCE (RFC 8489 §9.2.4).
    case noChallenge
    /// No answer to `method` after every retransmission.
    case timedOut(method: STUNMethod)
    /// The answer to `method` was a response to another method.
    case mismatchedResponse(method: STUNMethod, answered: STUNMethod)
    /// A successful Allocate response without XOR-RELAYED-ADDRESS.
    case noRelayedAddress
    /// A Refresh answered with LIFETIME 0: the server deleted it.
    case allocationEnded
    /// Bytes on the stream that are neither STUN nor ChannelData.
    case garbage
    /// The stream or socket to the server closed; `detail` is the
    /// operating system's words when it gave any.
    case transportClosed(detail: String?)
    /// The TCP connection to `server` could not be opened.
    case unreachable(server: String, detail: String)
    /// The TLS handshake with the server named `serverName` failed.
    case tlsFailed(serverName: String, detail: String)
    /// The local address the allocation was made from went away.
    case localAddressGone(String)
}

extension TURNFailure: CustomStringConvertible {
    public var description: String {
        switch self {
        case .rejected(let method, let code, let reason):
            return Self.rejection(method, code, reason)
        case .noChallenge:
            return "the TURN server asked for credentials (401) without a usable realm and nonce"
        case .timedOut(let method):
            return "the TURN server did not answer the \(method) request in time"
        case .mismatchedResponse(let method, let answered):
            return "the TURN server answered the \(method) request with a \(answered) response"
        case .noRelayedAddress:
            return "the TURN server's Allocate answer has no relayed address"
        case .allocationEnded:
            return "the TURN server ended the allocation"
        case .garbage:
            return "the TURN server sent bytes that are neither STUN nor ChannelData"
        case .transportClosed(let detail):
            return "the connection to the TURN server closed" + (detail.map { " (\($0))" } ?? "")
        case .unreachable(let server, let detail):
            return "cannot reach TURN server \(server): \(detail)"
        case .tlsFailed(let name, let detail):
            return "TLS to TURN server \(name): \(detail)"
        case .localAddressGone(let address):
            return "the local address \(address) the allocation was made from is gone"
        }
    }

    private static func rejection(_ method: STUNMethod, _ code: Int?, _ reason: String) -> String {
        guard let code else {
            return "the TURN server answered the \(method) request with an error but no error code"
        }
        switch code {
        case 401, 441: return "the TURN server rejected the credentials (\(code))"
        case 437 where method == .allocate:
            return "the TURN server reports an allocation mismatch (437): this address already has an allocation"
        case 437: return "the TURN allocation no longer exists on the server (437)"
        case 486: return "the TURN server's allocation quota for this user is reached (486)"
        case 508: return "the TURN server has no capacity for another \(method == .channelBind ? "channel" : "allocation") (508)"
        case 403: return "the TURN server forbids relaying to this peer (403)"
        case 438: return "the TURN server kept rejecting the nonce as stale (438)"
        case 300: return "the TURN server redirects to another server (300), which this client does not follow"
        case 420: return "the TURN server does not understand a required attribute (420)"
        case 440: return "the TURN server does not support this address family (440)"
        case 442: return "the TURN server does not relay UDP (442)"
        case 443: return "the peer's address family differs from the relayed address (443)"
        default: return "the TURN server refused the \(method) request (\(code) \(printable(reason)))"
        }
    }

    /// The reason phrase comes from the network: keep printable ASCII only
    /// and a sane length, so it cannot smuggle terminal control sequences.
    static func printable(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F }.prefix(80).map(Character.init))
    }
}

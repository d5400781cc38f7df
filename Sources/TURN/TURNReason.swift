import STUN

/// One clear sentence for each way a TURN request can fail, so the CLI can
/// show it as is (RFC 8656 §19 lists the TURN error codes).
enum TURNReason {
    static func rejected(_ request: TURNRequest, _ error: STUNErrorCode?) -> String {
        guard let error else {
            return "the TURN server answered the \(request.method) request with an error but no error code"
        }
        let code = error.code
        switch code {
        case 401, 441:
            return "the TURN server rejected the credentials (\(code))"
        case 437:
            if case .allocate = request {
                return "the TURN server reports an allocation mismatch (437): this address already has an allocation"
            }
            return "the TURN allocation no longer exists on the server (437)"
        case 486:
            return "the TURN server's allocation quota for this user is reached (486)"
        case 508:
            return "the TURN server has no capacity for another \(request.method == .channelBind ? "channel" : "allocation") (508)"
        case 403:
            return "the TURN server forbids relaying to this peer (403)"
        case 438:
            return "the TURN server kept rejecting the nonce as stale (438)"
        case 300:
            return "the TURN server redirects to another server (300), which this client does not follow"
        case 420:
            return "the TURN server does not understand a required attribute (420)"
        case 440:
            return "the TURN server does not support this address family (440)"
        case 442:
            return "the TURN server does not relay UDP (442)"
        case 443:
            return "the peer's address family differs from the relayed address (443)"
        default:
            return "the TURN server refused the \(request.method) request (\(code) \(printable(error.reason)))"
        }
    }

    static func noChallenge() -> String {
        "the TURN server asked for credentials (401) without a usable realm and nonce"
    }

    static func timedOut(_ request: TURNRequest) -> String {
        "the TURN server did not answer the \(request.method) request in time"
    }

    /// The reason phrase comes from the network: keep printable ASCII only
    /// and a sane length, so it cannot smuggle terminal control sequences.
    static func printable(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F }.prefix(80).map(Character.init))
    }
}

import STUN

/// The requests a TURN client makes (RFC 8656 §7–§11), with what each one
/// is for, so a response or timeout can be acted on.
enum TURNRequest: Hashable, Sendable {
    case allocate
    /// Refresh with LIFETIME; 0 deletes the allocation (§7.2).
    case refresh(lifetime: UInt32)
    case createPermission(peer: STUNAddress)
    case channelBind(peer: STUNAddress, number: UInt16)

    var method: STUNMethod {
        switch self {
        case .allocate: .allocate
        case .refresh: .refresh
        case .createPermission: .createPermission
        case .channelBind: .channelBind
        }
    }

    /// The request's own attributes, before credentials.
    var attributes: [STUNAttribute] {
        switch self {
        case .allocate:
            // 17: UDP, the only relayed transport RFC 8656 defines.
            [.requestedTransport(17)]
        case .refresh(let lifetime):
            [.lifetime(lifetime)]
        case .createPermission(let peer):
            [.xorPeerAddress(peer)]
        case .channelBind(let peer, let number):
            [.channelNumber(number), .xorPeerAddress(peer)]
        }
    }
}

/// A request in flight: its purpose and how it was sent, to decide on a
/// retry after 401 (first challenge) or 438 (stale nonce).
struct Outstanding: Sendable {
    let request: TURNRequest
    let authenticated: Bool
    let staleNonceRetries: Int
}

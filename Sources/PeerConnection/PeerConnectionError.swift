import DTLS
import ICE
import SCTP
import SDP

/// Why a peer connection failed, or why a call on it did. Typed so that
/// callers and tests match cases; the sentence for the user is
/// `description`, written in one place below.
public enum PeerConnectionError: Error, Equatable, Sendable {
    case certificateUnavailable(DTLSError)
    /// The peer's offer or answer does not parse.
    case unusableDescription(SDPError)
    /// The peer's offer cannot be answered.
    case cannotAnswer(SDPError)
    /// The peer's description carries no SHA-256 certificate fingerprint.
    case noFingerprint
    /// Both sides want the same DTLS role (RFC 8842 §5).
    case roleConflict(SDPError)
    case cannotStartDTLS(DTLSError)
    /// A renegotiation carried another certificate or `a=tls-id`: the peer started a new
    /// connection, so this one cannot continue.
    case certificateChanged
    /// The association is not up (or already ended).
    case notConnected
    /// The `label` channel is not (or no longer) open.
    case channelNotOpen(label: String)
    case cannotSend(label: String, SCTPError)
    case cannotOpenChannel(label: String, SCTPError)
    case cannotEncrypt(DTLSError)
    /// DTLS failed (handshake, fingerprint, or the connection afterwards).
    case dtls(DTLSError)
    /// The path went away before DTLS was up, or for good.
    case pathLost(PathLoss)
}

/// Why the path stopped carrying traffic (`disconnected`).
public enum PathLoss: Hashable, Sendable {
    /// Consent checks went unanswered for `seconds`.
    case noAnswer(seconds: Int)
    case ice(ICEFailure)
}

/// Whose network changed under the connection (`networkChanged`).
public enum NetworkChange: Hashable, Sendable {
    /// An address of ours came or went.
    case local
    /// The peer trickled a new host candidate after the pair was selected.
    case peer
}

extension PeerConnectionError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .certificateUnavailable(let error): return "cannot make a DTLS certificate: \(error)"
        case .unusableDescription(let error): return "the peer's session description is unusable: \(error)"
        case .cannotAnswer(let error): return "cannot answer the offer: \(error)"
        case .noFingerprint: return "the peer's session description has no usable certificate fingerprint"
        case .roleConflict(let error): return "the peers cannot agree on DTLS roles: \(error)"
        case .cannotStartDTLS(let error): return "cannot start DTLS: \(error)"
        case .certificateChanged: return "the peer's certificate changed: it started a new connection"
        case .notConnected: return "the connection is not open"
        case .channelNotOpen(let label): return "the \(label == "chat" ? "chat" : "'\(label)'") channel is not open"
        case .cannotSend(let label, let error): return "cannot send on '\(label)': \(error)"
        case .cannotOpenChannel(let label, let error): return "cannot open the '\(label)' channel: \(error)"
        case .cannotEncrypt(let error): return "cannot encrypt: \(error)"
        case .dtls(let error): return error.description
        case .pathLost(let loss): return loss.description
        }
    }
}

extension PathLoss: CustomStringConvertible {
    public var description: String {
        switch self {
        case .noAnswer(let seconds): return "no answer from the peer for \(seconds) s"
        case .ice(let failure): return failure.description
        }
    }
}

extension NetworkChange: CustomStringConvertible {
    public var description: String {
        switch self {
        case .local: return "your network changed"
        case .peer: return "your peer's network changed"
        }
    }
}

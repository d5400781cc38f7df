/// Everything that can go wrong in the DTLS layer, each with one sentence a
/// user can act on (`description`).
public enum DTLSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The peer's certificate hash differs from the `a=fingerprint` in its SDP.
    case fingerprintMismatch
    /// The remote SDP named a hash function we do not verify with.
    case unsupportedFingerprintAlgorithm(String)
    /// OpenSSL aborted the handshake (alert sent or received); detail from its error queue.
    case handshakeFailed(String)
    /// Retransmissions ran out without an answer.
    case handshakeTimedOut
    /// A fatal error after the handshake (e.g. a fatal alert from the peer).
    case connectionFailed(String)
    /// `send` before the handshake completed or after the association ended.
    case notConnected
    /// `send` with more plaintext than fits one datagram.
    case messageTooLarge(size: Int, limit: Int)
    /// Key or certificate generation failed.
    case certificateGenerationFailed(String)
    /// Creating or configuring the OpenSSL context failed.
    case setupFailed(String)
    /// A saved certificate and key could not be read back.
    case certificateImportFailed(String)

    public var description: String {
        switch self {
        case .fingerprintMismatch:
            return "the peer's certificate does not match the fingerprint it announced — possible man-in-the-middle"
        case .unsupportedFingerprintAlgorithm(let name):
            return "the peer announced a certificate fingerprint with hash \"\(name)\", which is not supported (use sha-256)"
        case .handshakeFailed(let detail):
            return "the DTLS handshake failed: \(detail)"
        case .handshakeTimedOut:
            return "the DTLS handshake timed out: the peer stopped answering"
        case .connectionFailed(let detail):
            return "the DTLS connection failed: \(detail)"
        case .notConnected:
            return "the DTLS connection is not open"
        case .messageTooLarge(let size, let limit):
            return "a DTLS record of \(size) bytes does not fit one datagram (at most \(limit) bytes)"
        case .certificateGenerationFailed(let detail):
            return "could not generate the DTLS certificate: \(detail)"
        case .setupFailed(let detail):
            return "could not set up DTLS: \(detail)"
        case .certificateImportFailed(let detail):
            return "could not read the saved DTLS certificate: \(detail)"
        }
    }
}

/// What a `DTLSEndpoint` reports, in order, through `pollEvent()`.
public enum DTLSEvent: Sendable, Equatable {
    /// The handshake completed and the peer's certificate matched its SDP
    /// fingerprint; carries the peer's SHA-256 fingerprint (for the SAS).
    case connected(peerFingerprint: Fingerprint)
    /// One decrypted application-data record.
    case data([UInt8])
    /// The peer sent close_notify.
    case closed
    /// The association is dead; no data follows.
    case failed(DTLSError)
}

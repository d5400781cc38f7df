/// Why a remote session description cannot be used, one sentence each.
public enum SDPError: Error, Sendable, Equatable, CustomStringConvertible {
    case noDataChannelSection
    case missingFingerprint
    case missingICECredentials
    /// `a=setup` values that leave no DTLS client (both actpass, both active…).
    case setupConflict(local: DTLSSetup, remote: DTLSSetup?)
    case unsupportedSetup(String)

    public var description: String {
        switch self {
        case .noDataChannelSection:
            return "the session description has no WebRTC data channel section (m=application … DTLS/SCTP webrtc-datachannel)"
        case .missingFingerprint:
            return "the session description has no DTLS certificate fingerprint (a=fingerprint)"
        case .missingICECredentials:
            return "the session description lacks ICE credentials (a=ice-ufrag and a=ice-pwd)"
        case .setupConflict(let local, let remote):
            return "the DTLS roles cannot be settled: we are \(local.rawValue), the peer is \(remote?.rawValue ?? "unspecified")"
        case .unsupportedSetup(let value):
            return "the peer's DTLS setup \"\(value)\" is not supported (expected actpass, active or passive)"
        }
    }
}

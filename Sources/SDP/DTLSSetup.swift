/// The `a=setup` attribute (RFC 4145 §4, used for DTLS by RFC 5763 §5 and
/// RFC 8842 §5): who opens the DTLS association.
public enum DTLSSetup: String, Sendable, Equatable, CaseIterable {
    /// Offer only: "either; you choose".
    case actpass
    /// This side is the DTLS client.
    case active
    /// This side is the DTLS server.
    case passive
    /// No connection now (never useful for a data channel).
    case holdconn

    /// Which end of the DTLS handshake an endpoint plays.
    public enum Role: Sendable, Equatable { case client, server }

    /// The answerer's `a=setup` for an offer. RFC 8842 §5.3: an offer must be
    /// actpass and the answer should then be active, which makes the answerer
    /// the DTLS client (its ClientHello can go out as soon as ICE connects, one
    /// round trip sooner). A missing attribute means active (RFC 4145 §4).
    public static func answer(to offered: DTLSSetup?) throws(SDPError) -> DTLSSetup {
        switch offered {
        case .actpass?, .passive?: return .active
        case .active?, nil: return .passive
        case .holdconn?: throw .unsupportedSetup("holdconn")
        }
    }

    /// Our DTLS role once both descriptions are known.
    public static func localRole(local: DTLSSetup, remote: DTLSSetup?) throws(SDPError) -> Role {
        switch (local, remote ?? .active) {
        case (.active, .passive), (.active, .actpass): return .client
        case (.passive, .active), (.passive, .actpass): return .server
        // We offered actpass: the answer decided.
        case (.actpass, .active): return .server
        case (.actpass, .passive): return .client
        default: throw .setupConflict(local: local, remote: remote)
        }
    }
}

/// One `a=fingerprint` value, kept as text: the SDP module does not judge hash
/// functions, the DTLS layer parses and checks it.
public struct SDPFingerprint: Sendable, Equatable {
    /// Lowercased hash name, e.g. `sha-256`.
    public var algorithm: String
    /// Colon-separated hex digits as written.
    public var value: String

    public init(algorithm: String, value: String) {
        self.algorithm = algorithm.lowercased()
        self.value = value
    }

    /// `sha-256 AB:CD:…`
    public var sdpValue: String { "\(algorithm) \(value)" }
}

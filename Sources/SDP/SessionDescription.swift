/// The parts of an SDP offer or answer (RFC 8866) that a WebRTC data channel
/// needs (RFC 8841): ICE credentials and candidates, DTLS fingerprints and
/// setup role, and the SCTP port and message size limit.
///
/// ``parse(_:)`` is lenient: it accepts LF or CRLF, ignores lines it does not
/// know, takes ICE and DTLS attributes from session or media level, and picks
/// the data-channel m-section among audio or video ones.
/// ``serialized()`` is strict: exactly the lines of WireProtocol §3, CRLF-ended.
public struct SessionDescription: Sendable, Equatable {
    /// `o=` session id (digits; random 63-bit number when we generate it).
    public var sessionID: String
    public var iceUfrag: String
    public var icePwd: String
    public var iceOptions: [String]
    /// `a=ice-lite`: the peer only answers checks (RFC 8445 §2.5).
    public var iceLite: Bool
    /// Every `a=fingerprint`, media level first; at least one after parsing.
    public var fingerprints: [SDPFingerprint]
    public var setup: DTLSSetup?
    /// `a=tls-id` (RFC 8842 §5.2): names the DTLS association; another value
    /// with the same certificate means a new association (a resumed session
    /// keeps its certificate). Nil when the peer sends none.
    public var tlsID: String?
    /// `a=x-chatcli-pake`: the sender runs the code's PAKE on `ctl` (chatcli
    /// does; browsers, Inviso and aiortc never send it), so a creator knows at
    /// once whether to wait for the PAKE (WireProtocol §4c).
    public var codePAKE = false
    public var mid: String?
    /// SCTP port (`a=sctp-port`, legacy `a=sctpmap` or legacy m-line format).
    public var sctpPort: Int
    /// `a=max-message-size` as given; nil when absent (RFC 8841 §6: 64 KiB
    /// then), 0 means no limit.
    public var maxMessageSize: Int?
    /// `a=candidate` values with their `candidate:` prefix, as a browser's
    /// `RTCIceCandidate.candidate` carries them.
    public var candidates: [String]
    public var endOfCandidates: Bool
    /// The m-line port: 9 (discard) when ICE supplies addresses, a real port in
    /// some stacks' SDP (aiortc).
    public var port: Int

    public init(sessionID: String, iceUfrag: String, icePwd: String, fingerprints: [SDPFingerprint],
                setup: DTLSSetup, mid: String = "0", sctpPort: Int = 5000, maxMessageSize: Int? = 262_144,
                iceOptions: [String] = ["trickle"], iceLite: Bool = false,
                candidates: [String] = [], endOfCandidates: Bool = false, port: Int = 9) {
        self.sessionID = sessionID
        self.iceUfrag = iceUfrag
        self.icePwd = icePwd
        self.fingerprints = fingerprints
        self.setup = setup
        self.mid = mid
        self.sctpPort = sctpPort
        self.maxMessageSize = maxMessageSize
        self.iceOptions = iceOptions
        self.iceLite = iceLite
        self.candidates = candidates
        self.endOfCandidates = endOfCandidates
        self.port = port
    }

    /// The fingerprint to verify the peer against: sha-256 if announced
    /// (what every WebRTC stack sends), else the strongest SHA-2 one, else the first.
    public var preferredFingerprint: SDPFingerprint? {
        for name in ["sha-256", "sha-512", "sha-384", "sha-224", "sha-1"] {
            if let f = fingerprints.first(where: { $0.algorithm == name }) { return f }
        }
        return fingerprints.first
    }

    /// Largest message the peer accepts (RFC 8841 §6.1): 64 KiB when
    /// unannounced, nil when it announced no limit (0).
    public var effectiveMaxMessageSize: Int? {
        guard let maxMessageSize else { return 65_536 }
        return maxMessageSize == 0 ? nil : maxMessageSize
    }

    /// A fresh offer (`a=setup:actpass`) or answer (`active`, RFC 8842 §5.3).
    public static func offer(sessionID: UInt64, iceUfrag: String, icePwd: String, fingerprint: SDPFingerprint,
                             tlsID: String? = nil, candidates: [String] = [], endOfCandidates: Bool = false) -> SessionDescription {
        var offer = SessionDescription(sessionID: String(sessionID & 0x7FFF_FFFF_FFFF_FFFF), iceUfrag: iceUfrag, icePwd: icePwd,
                                       fingerprints: [fingerprint], setup: .actpass,
                                       candidates: candidates, endOfCandidates: endOfCandidates)
        offer.tlsID = tlsID
        return offer
    }

    public static func answer(to offer: SessionDescription, sessionID: UInt64, iceUfrag: String, icePwd: String,
                              fingerprint: SDPFingerprint, tlsID: String? = nil, candidates: [String] = [],
                              endOfCandidates: Bool = false) throws(SDPError) -> SessionDescription {
        var answer = SessionDescription(sessionID: String(sessionID & 0x7FFF_FFFF_FFFF_FFFF), iceUfrag: iceUfrag,
                                        icePwd: icePwd, fingerprints: [fingerprint],
                                        setup: try DTLSSetup.answer(to: offer.setup),
                                        candidates: candidates, endOfCandidates: endOfCandidates)
        answer.mid = offer.mid ?? "0"  // RFC 8843: the answer echoes the offer's mid
        answer.tlsID = tlsID
        return answer
    }
}

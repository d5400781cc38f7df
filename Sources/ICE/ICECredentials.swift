import STUN

/// An ICE username fragment and password (RFC 8445 §5.3, RFC 8839 §5.4).
///
/// Local credentials must be unguessable: `random(using:)` with a
/// cryptographic generator gives 8 ufrag and 24 password characters, above
/// the 4 and 22 the RFC requires. Remote credentials are taken as the peer
/// sent them.
public struct ICECredentials: Hashable, Sendable {
    public let ufrag: String
    public let pwd: String

    public init(ufrag: String, pwd: String) {
        self.ufrag = ufrag
        self.pwd = pwd
    }

    /// `ice-char = ALPHA / DIGIT / "+" / "/"` (RFC 8839 §5.4).
    static let iceChars: [Character] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")

    public static func random(using generator: inout some RandomNumberGenerator) -> ICECredentials {
        func text(_ count: Int) -> String {
            String((0..<count).map { _ in iceChars[Int(generator.next(upperBound: UInt64(iceChars.count)))] })
        }
        return ICECredentials(ufrag: text(8), pwd: text(24))
    }

    /// Lengths and characters as RFC 8839 §5.4 requires of an offer.
    public var isWellFormed: Bool {
        (4...256).contains(ufrag.count) && (22...256).contains(pwd.count)
            && ufrag.allSatisfy(Self.iceChars.contains) && pwd.allSatisfy(Self.iceChars.contains)
    }
}

/// Timers and limits of the agent. The defaults follow RFC 8445, 7675 and
/// what browsers do; tests shorten them.
public struct ICEConfig: Hashable, Sendable {
    /// Ta: the pace of new connectivity checks (RFC 8445 §14.2).
    public var checkInterval: Duration = .milliseconds(50)
    /// Check retransmissions (RFC 8445 §14.3 asks for an RTO of at least
    /// 500 ms). With the defaults a check is sent at 0, 0.5, 1.5, 3.1, 4.7
    /// and 6.3 s and fails at 7.9 s: quicker than STUN's 39.5 s so a dead
    /// pair does not hold up the failure verdict.
    public var checkRetransmission = STUNRetransmissionPolicy(
        initialRTO: .milliseconds(500), maxTransmissions: 6, lastWaitMultiplier: 3, maxRTO: .milliseconds(1600))
    /// Binding requests to STUN servers: sent at 0, 0.5, 1.5 and 3.5 s,
    /// given up at 5.5 s, so gathering never stalls a session for long.
    public var gatherRetransmission = STUNRetransmissionPolicy(
        initialRTO: .milliseconds(500), maxTransmissions: 4, lastWaitMultiplier: 4)
    /// How long the controlling agent waits after the first valid pair for
    /// a better one before nominating (regular nomination, §8.1.1).
    public var nominationDelay: Duration = .milliseconds(200)
    /// A relayed pair is not nominated while a direct pair's check, begun
    /// less than this long ago, still awaits its answer: under loss the
    /// first retransmission (at 0.5 s) usually gets through, and a direct
    /// path is worth a short wait.
    public var directPatience: Duration = .milliseconds(1200)
    /// Without a selected pair after this long, the agent fails even if the
    /// peer never signalled end-of-candidates.
    public var connectTimeout: Duration = .seconds(30)
    /// RFC 7675 consent checks: every interval × 0.8…1.2.
    public var consentInterval: Duration = .seconds(5)
    /// RFC 7675 §5.1: consent expires 30 s after the last answer.
    public var consentTimeout: Duration = .seconds(30)
    /// Unanswered consent for this long reports `disconnected`.
    public var disconnectedTimeout: Duration = .seconds(8)
    /// Consent request retransmissions: 0, 0.5, 1.5 s, done at 3.5 s.
    public var consentRetransmission = STUNRetransmissionPolicy(
        initialRTO: .milliseconds(500), maxTransmissions: 3, lastWaitMultiplier: 4)
    /// Caps that bound memory and check traffic whatever the peer sends
    /// (RFC 8445 §6.1.2.5 suggests 100 pairs).
    public var maxRemoteCandidates = 100
    public var maxPairs = 100
    /// WebRTC's `iceTransportPolicy: "relay"`: only relayed local
    /// candidates are offered and checked, so the peer never learns this
    /// host's addresses (host bases still reach the TURN servers).
    public var relayOnly = false
    /// How long gathering waits for a TURN allocation before reporting
    /// `gatheringComplete` anyway; a later allocation is still trickled.
    public var relayGatherTimeout: Duration = .seconds(5)
    /// Birthday-paradox port probing between a hard and an easy NAT; off
    /// (nil) by default.
    public var portProbing: PortProbingConfig?

    public init() {}
}

import STUN
import TURN

/// Why ICE gave up (`ICEState.failed`). Typed so that callers and tests
/// match cases; the sentence for the user is `description`, written in one
/// place below.
public indirect enum ICEFailure: Error, Hashable, Sendable {
    /// No host address to send from.
    case noLocalAddress
    /// Relay-only, and no TURN allocation could be made.
    case noRelayAllocated(RelayOutcome)
    /// The peer's ice-ufrag/ice-pwd never arrived.
    case noRemoteCredentials
    case noRemoteCandidates
    /// Only `.local` host candidates, which this agent does not resolve.
    case onlyMDNSCandidates
    /// Only TCP candidates; ICE-TCP is not supported.
    case onlyTCPCandidates
    /// `count` remote candidates, none pairable with a local one.
    case noUsablePairs(remoteCandidates: Int)
    /// Every pair failed and the STUN server never answered either.
    case udpBlocked(pairs: Int, relays: RelayOutcome)
    /// Every pair failed after both sides finished trickling.
    case allPairsFailed(pairs: Int, relays: RelayOutcome)
    /// Checks succeeded but the controlling agent never nominated a pair.
    case neverNominated(valid: Int, pairs: Int)
    /// Some pairs failed and the rest never got an answer.
    case noAnswer(failed: Int, pairs: Int, relays: RelayOutcome)
    /// The connect timeout passed first; `cause` is what was wrong by then.
    case timedOut(seconds: Int, cause: ICEFailure)
    /// Consent checks on the selected pair went unanswered (RFC 7675).
    case consentExpired(seconds: Int)
}

/// What became of the TURN servers, for the failure sentence.
public enum RelayOutcome: Hashable, Sendable {
    case notConfigured
    /// Every relay is done but none gave a reason (all still pending or lost).
    case noneSucceeded
    case failed([RelayFailure])
}

/// Why one TURN server gave no relayed candidate.
public enum RelayFailure: Hashable, Sendable {
    /// No local address of the server's family to send from.
    case noLocalAddress(server: STUNAddress)
    /// No answer within the gathering deadline.
    case noAnswer(server: STUNAddress, seconds: Int)
    case turn(TURNFailure)
}

extension ICEFailure: CustomStringConvertible {
    public var description: String {
        switch self {
        case .noLocalAddress:
            return "no local network address to send from"
        case .noRelayAllocated(let relays):
            return "relay-only mode, but no TURN relay could be allocated: \(relays)"
        case .noRemoteCredentials:
            return "the peer's ICE credentials (ice-ufrag/ice-pwd) never arrived"
        case .noRemoteCandidates:
            return "no remote candidates received"
        case .onlyMDNSCandidates:
            return "the peer sent only mDNS (.local) host candidates, which this agent does not resolve, and no server-reflexive ones"
        case .onlyTCPCandidates:
            return "the peer sent only TCP candidates; ICE over TCP is not supported"
        case .noUsablePairs(let count):
            return "none of the \(count) remote candidates can be paired with a local one (different address family or unusable address)"
        case .udpBlocked(let pairs, let relays):
            return "all \(pairs) candidate pairs failed and the STUN server never answered: this network seems to block UDP; a TURN relay over TCP is needed (\(relays))"
        case .allPairsFailed(let pairs, let relays):
            return "all \(pairs) candidate pairs failed: the peer's network blocks UDP or both sides are behind symmetric NATs; a TURN relay is needed (\(relays))"
        case .neverNominated(let valid, let pairs):
            return "checks succeeded on \(valid) of \(pairs) pairs but the controlling agent never nominated one"
        case .noAnswer(let failed, let pairs, let relays):
            return "\(failed) of \(pairs) candidate pairs failed and the rest got no answer: the peer's network blocks UDP or both sides are behind symmetric NATs; a TURN relay is needed (\(relays))"
        case .timedOut(let seconds, let cause):
            return "no connection after \(seconds) s: \(cause)"
        case .consentExpired(let seconds):
            return "consent expired: the peer stopped answering for \(seconds) s (it left, or the network path was cut)"
        }
    }
}

extension RelayOutcome: CustomStringConvertible {
    public var description: String {
        switch self {
        case .notConfigured: return "no TURN server was configured"
        case .noneSucceeded: return "no TURN allocation succeeded"
        case .failed(let failures): return failures.map(\.description).joined(separator: "; ")
        }
    }
}

extension RelayFailure: CustomStringConvertible {
    public var description: String {
        switch self {
        case .noLocalAddress(let server):
            return "no local \(server.family == .ipv4 ? "IPv4" : "IPv6") address to reach TURN server \(server) from"
        case .noAnswer(let server, let seconds):
            return "TURN server \(server) did not answer within \(seconds) s"
        case .turn(let failure):
            return failure.description
        }
    }
}

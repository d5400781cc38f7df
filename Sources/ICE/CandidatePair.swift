import STUN

/// A selected (or candidate) pair as the agent reports it: which local and
/// remote candidate carry the data, the base to send from, and the round
/// trip time of the last answered check.
public struct ICEPair: Hashable, Sendable {
    /// The local candidate the peer sees: host, srflx or prflx, learned
    /// from the XOR-MAPPED-ADDRESS of the last successful check.
    public let local: ICECandidate
    public let remote: ICECandidate
    /// The local address to send from.
    public let localBase: STUNAddress
    public let remoteAddress: STUNAddress
    public let nominated: Bool
    /// Round trip of the last answered check or consent request.
    public let rttMilliseconds: Int?

    /// `relay` when either side is relayed, else the remote candidate's
    /// type: the `path` of the CLI's `connected` event.
    public var path: String {
        local.type == .relay || remote.type == .relay ? "relay" : remote.type.rawValue
    }
}

/// A local candidate and the base it is sent from (RFC 8445 §5.1.1).
struct LocalCandidate: Hashable, Sendable {
    var candidate: ICECandidate
    let base: STUNAddress
    let localPreference: UInt16
}

/// Candidate pair states (RFC 8445 §6.1.2.6).
enum PairState: Hashable, Sendable {
    case frozen
    case waiting
    case inProgress
    case succeeded
    case failed
}

/// One entry of the check list. Redundant pairs are pruned when they are
/// added (one pair per base and remote address, §6.1.2.4), so the valid pair
/// a check produces always shares its base and remote address with the pair
/// that was checked: it is kept here as `mappedLocal` instead of as a
/// separate list entry.
struct CandidatePair: Sendable {
    let id: Int
    let local: LocalCandidate
    var remote: ICECandidate
    let remoteAddress: STUNAddress
    var state: PairState = .frozen
    /// The local candidate matching the mapped address of the last success.
    var mappedLocal: ICECandidate?
    /// In the valid list (§7.2.5.3.2).
    var valid = false
    var nominated = false
    /// Controlled side: the peer sent USE-CANDIDATE before our own check
    /// on this pair succeeded (§7.3.1.5).
    var nominateOnSuccess = false
    var rtt: Duration?
    /// When the first check on this pair went out.
    var checkedSince: Duration?

    var foundation: String { local.candidate.foundation + ":" + remote.foundation }
    /// Either end is a TURN relay.
    var isRelayed: Bool { local.candidate.type == .relay || remote.type == .relay }

    func priority(role: ICERole) -> UInt64 {
        let ours = local.candidate.priority, theirs = remote.priority
        return role == .controlling
            ? ICEPriority.pair(controlling: ours, controlled: theirs)
            : ICEPriority.pair(controlling: theirs, controlled: ours)
    }

    var snapshot: ICEPair {
        ICEPair(
            local: mappedLocal ?? local.candidate, remote: remote, localBase: local.base,
            remoteAddress: remoteAddress, nominated: nominated,
            rttMilliseconds: rtt.map { Int($0.wholeMilliseconds) })
    }
}

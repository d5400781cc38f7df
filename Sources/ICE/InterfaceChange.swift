import STUN

/// The machine's network changing under a live session (a laptop switching
/// Wi-Fi): bases come and go. New bases are added with `addLocalInterface`
/// (a host candidate trickled at once, srflx gathered); a vanished one is
/// removed here, so nothing is sent from a socket that no longer exists.
/// Recovering the path itself is an ICE restart (RFC 8445 §9: a nominated
/// pair may not be replaced within one ICE session), which the owner runs.
extension ICEAgent {
    /// Forgets the base `address` and every candidate on it; its pairs
    /// fail and its checks, lookups and consent requests stop. A selected
    /// pair on it stays reported until a restart replaces it, but consent
    /// on it no longer counts: the path is down. UDP TURN allocations made
    /// from it are lost with it and made again from another base
    /// (`moveRelays(off:)`).
    public func removeLocalInterface(_ address: STUNAddress) {
        guard hostBases.contains(address) else { return }
        localCandidates.removeAll { $0.base == address }
        mappedAddresses.removeAll { $0.base == address }
        checkList.failPairs(base: address)
        for index in gatherJobs.indices where gatherJobs[index].base == address {
            gatherJobs[index].finished = true
        }
        for id in transactionOrder where transactions[id]?.base == address {
            finishTransaction(id)
        }
        if let pair = nominatingPair, checkList[pair].local.base == address { nominatingPair = nil }
        moveRelays(off: address)
    }

    /// True when the selected pair was chosen in this ICE generation, not
    /// kept from before a restart.
    public var hasCurrentSelectedPair: Bool { selectedID != nil }

    /// Trickles the host candidates again (same generation): how a
    /// controlled agent whose network changed without gaining an address
    /// tells the controlling one, which restarts ICE on hearing a host
    /// candidate after the session's pair was selected. Relay-only, the
    /// relayed candidates go instead (host ones are never shown): the peer
    /// hears a candidate it already has, which never happens otherwise.
    public func announceCandidates() {
        let type: ICECandidateType = config.relayOnly ? .relay : .host
        for local in localCandidates where local.candidate.type == type { emit(.localCandidate(local.candidate)) }
    }

    /// Whether the peer already signalled this candidate (same type and
    /// address) in this generation.
    public func knowsRemoteCandidate(_ candidate: ICECandidate) -> Bool {
        remoteCandidates.contains { $0.type == candidate.type && $0.address == candidate.address }
    }
}

import ICE
import STUN

/// Reconnecting at once when the network changes under a live chat, instead
/// of waiting for consent checks to go unanswered (issue: network change).
///
/// A nominated pair cannot be replaced within an ICE session (RFC 8445
/// §8.1.1), so the path moves by an ICE restart (§9), which only the
/// offerer runs (JSEP: it makes the offers). Each side learns of a change
/// differently:
/// - its own: the runtime sees addresses come or go (rtnetlink) and calls
///   `localAddressesChanged`. The offerer restarts. The answerer cannot
///   offer, so it tells the offerer the standard way, over signaling every
///   server relays: it trickles its new host candidate, or announces its
///   host candidates again when it gained none (RFC 8838 lets candidates
///   trickle at any time; a receiver ignores duplicates), or, relay-only,
///   its relayed candidates again;
/// - the peer's: as the offerer, a host candidate of the current generation
///   (or any candidate already known) trickled after the pair was selected. Host candidates are trickled the
///   moment gathering starts, with the description; one that arrives later
///   than `trickleGrace` after it was gathered later, so the peer's
///   interfaces changed. (A browser with continual gathering trickles the
///   same way, and gets the same restart.)
extension PeerConnection {
    /// Host candidates arriving this soon after the remote description are
    /// taken as part of the initial trickle, never as a network change.
    static let trickleGrace: Duration = .seconds(1)

    /// The runtime's sockets changed: `added` bases are bound, `removed`
    /// ones closed. Before DTLS is up ICE simply checks with what exists.
    public func localAddressesChanged(added: [STUNAddress], removed: [STUNAddress], now: Duration) {
        self.now = now
        let selectedBaseGone = agent.selectedPair.map { removed.contains($0.localBase) } ?? false
        for address in removed { agent.removeLocalInterface(address) }
        for address in added { agent.addLocalInterface(address) }
        if canRestartICE {
            if isOfferer || selectedBaseGone { networkChanged(.local) }
            // Relay-only, new bases are not announced: announce again what is.
            if !isOfferer && (added.isEmpty || config.ice.relayOnly) { agent.announceCandidates() }
        }
        drainICE()
        flush()
    }

    /// Offerer only: the peer trickled a host candidate, or one we already
    /// had (a relay-only peer's announcement), after this ICE generation's
    /// pair was selected.
    func noticePeerNetworkChange(_ candidate: ICECandidate) {
        guard isOfferer, canRestartICE, !pathDown, candidate.type == .host || agent.knowsRemoteCandidate(candidate),
              agent.hasCurrentSelectedPair,
              let credentials = agent.remoteCredentials, candidate.ufrag == nil || candidate.ufrag == credentials.ufrag,
              let since = remoteDescriptionAt, now >= since + Self.trickleGrace
        else { return }
        networkChanged(.peer)
    }

    private func networkChanged(_ change: NetworkChange) {
        pathDown = true
        events.append(.networkChanged(change))
    }
}

extension PeerConnection {
    /// A gateway's port mapping for `base` becomes a candidate (trickled now).
    public func addMappedCandidate(_ external: STUNAddress, base: STUNAddress, now: Duration) {
        self.now = now
        agent.addMappedCandidate(external, base: base)
    }

    /// A mapping that could not be refreshed is no longer offered.
    public func removeMappedCandidate(_ external: STUNAddress, now: Duration) {
        self.now = now
        agent.removeMappedCandidate(external)
    }
}

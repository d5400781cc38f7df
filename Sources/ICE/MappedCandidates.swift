import STUN

extension ICEAgent {
    /// A port mapping the gateway granted for `base` (PCP, NAT-PMP or UPnP
    /// IGD): offered as a server-reflexive candidate whose related address
    /// is the base (RFC 6887 §1 calls it exactly that), trickled at once,
    /// and offered again after an ICE restart. It never holds up gathering:
    /// it is added whenever the mapping arrives.
    public func addMappedCandidate(_ external: STUNAddress, base: STUNAddress) {
        guard !config.relayOnly, external.family == base.family else { return }
        if !mappedAddresses.contains(where: { $0.base == base && $0.external == external }) {
            mappedAddresses.append((base: base, external: external))
        }
        announceMapped(external, base: base)
    }

    func announceMapped(_ external: STUNAddress, base: STUNAddress) {
        guard !localCandidates.contains(where: { $0.candidate.address == external }),
              let host = localCandidates.first(where: { $0.base == base && $0.candidate.type == .host })
        else { return }
        let candidate = ICECandidate(
            foundation: ICEPriority.foundation(type: .srflx, baseIP: base.ip, server: external),
            priority: ICEPriority.candidate(type: .srflx, localPreference: host.localPreference),
            address: external, type: .srflx, related: base, extensions: candidateExtensions)
        localCandidates.append(LocalCandidate(candidate: candidate, base: base, localPreference: host.localPreference))
        emit(.localCandidate(candidate))
    }

    /// The mapping is gone (not refreshed, or its base vanished): it is no
    /// longer offered to new peers (pairs already checked stay as they are).
    public func removeMappedCandidate(_ external: STUNAddress) {
        mappedAddresses.removeAll { $0.external == external }
        localCandidates.removeAll { $0.candidate.type == .srflx && $0.candidate.address == external }
    }
}

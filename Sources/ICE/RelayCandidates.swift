import STUN
import TURN

/// What the TURN clients report: relayed candidates appear (RFC 8445
/// §5.1.1.2) and relayed traffic is handled as input on the relayed base.
extension ICEAgent {
    func handleRelayEvent(_ event: TURNEvent, relay index: Int) {
        switch event {
        case .allocated(let relayed, let mapped, _):
            relays[index].relayed = relayed
            relays[index].mapped = mapped
            relays[index].finished = true
            relays[index].failure = nil
            relays[index].everAllocated = true
            addRelayCandidate(index)
        case .refreshed:
            // Also the answer to the check of a restart (`verifyRelays`).
            relays[index].finished = true
            relays[index].failure = nil
            addRelayCandidate(index)
        case .failed(let reason):
            relays[index].finished = true
            relays[index].failure = .turn(reason)
            relayLost(index)
            reallocate(index)
        case .deallocated:
            relayLost(index)
        case .data(let peer, let bytes):
            guard let base = relays[index].relayed else { return }
            if Demux.classify(datagram: bytes) == .stun {
                handleSTUN(bytes, from: peer, base: base)
            } else if received.count < 64 {
                received.append(ICEReceived(bytes: bytes, source: peer, base: base))
            }
        case .permissionCreated, .permissionFailed, .channelBound, .channelBindFailed:
            break   // the client keeps permissions and channels alive itself
        }
    }

    /// The relayed candidate: type preference 0, related address the
    /// mapped one (§5.1.1.2), trickled and paired with every remote
    /// candidate of its family.
    func addRelayCandidate(_ index: Int) {
        let relay = relays[index]
        guard let relayed = relay.relayed, !localCandidates.contains(where: { $0.base == relayed }) else { return }
        let transport = relay.transport == .udp ? "udp" : "tcp"
        let candidate = ICECandidate(
            foundation: ICEPriority.foundation(type: .relay, baseIP: relayed.ip, server: relay.server, transport: transport),
            priority: ICEPriority.candidate(type: .relay, localPreference: relay.localPreference),
            address: relayed, type: .relay, related: relay.mapped, extensions: candidateExtensions)
        let local = LocalCandidate(candidate: candidate, base: relayed, localPreference: relay.localPreference)
        localCandidates.append(local)
        emit(.localCandidate(candidate))
        pairWithRemotes(local)
    }

    /// Pairs a new local candidate with the remote candidates of its family.
    func pairWithRemotes(_ local: LocalCandidate) {
        for remote in remoteCandidates {
            guard let remoteAddress = remote.address, remote.isUDP, remote.component == 1,
                  Self.pairable(base: local.base, remote: remoteAddress), remoteAddress.port != 0
            else { continue }
            checkList.add(local: local, remote: remote, remoteAddress: remoteAddress, limit: config.maxPairs)
        }
    }

    /// The allocation is gone: its pairs can carry nothing any more.
    private func relayLost(_ index: Int) {
        guard let relayed = relays[index].relayed else { return }
        relays[index].relayed = nil
        checkList.failPairs(base: relayed)
    }

    /// Once a relayed pair is selected, data goes as ChannelData (4 bytes
    /// of overhead instead of 36) on a channel bound to the peer.
    func bindRelayChannel(for pair: ICEPair) {
        guard let index = relayIndex(relayedBase: pair.localBase) else { return }
        relays[index].client.bindChannel(to: pair.remoteAddress, now: now)
        collectRelayTransmits(index)
    }

    /// The local candidates that are paired: relayed ones, and host ones
    /// unless the policy is relay-only.
    var pairableLocals: [LocalCandidate] {
        localCandidates.filter { $0.candidate.type == .relay || ($0.candidate.type == .host && !config.relayOnly) }
    }

    /// Why relayed candidates are missing, for the failure reason.
    var relayOutcome: RelayOutcome {
        let reasons = relays.compactMap(\.failure)
        if relays.isEmpty { return .notConfigured }
        return reasons.isEmpty ? .noneSucceeded : .failed(reasons)
    }
}

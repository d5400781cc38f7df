import STUN

/// One server-reflexive lookup: a Binding request from a base to a STUN
/// server (RFC 8445 §5.1.1.2).
struct GatherJob: Sendable {
    let base: STUNAddress
    let server: STUNAddress
    var started = false
    var finished = false
    /// The server answered (even with an error): UDP gets out.
    var answered = false
}

extension ICEAgent {
    /// A local address the owner has a socket for becomes a base and a host
    /// candidate, trickled at once. Adding the same address twice does
    /// nothing.
    public func addLocalInterface(_ address: STUNAddress) {
        guard !hostBases.contains(address), !address.ip.allSatisfy({ $0 == 0 }) else { return }
        let preference = ICEPriority.localPreference(for: address, interfaceIndex: hostBases.count)
        let candidate = ICECandidate(
            foundation: ICEPriority.foundation(type: .host, baseIP: address.ip),
            priority: ICEPriority.candidate(type: .host, localPreference: preference),
            address: address, type: .host, related: nil, extensions: candidateExtensions)
        let local = LocalCandidate(candidate: candidate, base: address, localPreference: preference)
        localCandidates.append(local)
        adoptOrphanRelays(address)
        // Relay-only: the base only reaches TURN servers, unannounced.
        guard !config.relayOnly else { return }
        emit(.localCandidate(candidate))
        for server in stunServers where server.family == address.family && !address.isLinkLocal {
            gatherJobs.append(GatherJob(base: address, server: server))
            gatheringCompleteSent = false
        }
        pairWithRemotes(local)
    }

    /// Server-reflexive candidates are gathered through every base of the
    /// server's address family; requests go out at the next `handleTimeout`.
    public func addSTUNServer(_ server: STUNAddress) {
        guard !stunServers.contains(server), !config.relayOnly else { return }
        stunServers.append(server)
        for base in routableHostBases where base.family == server.family {
            gatherJobs.append(GatherJob(base: base, server: server))
            gatheringCompleteSent = false
        }
    }

    /// `generation` and `ufrag`, as browsers add them, so the peer can tell
    /// candidates of different ICE generations apart.
    var candidateExtensions: [ICECandidate.Extension] {
        [.init(name: "generation", value: String(generation)), .init(name: "ufrag", value: localCredentials.ufrag)]
    }

    func startPendingGathering() {
        for index in gatherJobs.indices where !gatherJobs[index].started {
            gatherJobs[index].started = true
            let request = STUNMessage(type: .bindingRequest, transactionID: randomTransactionID())
            startTransaction(
                request, kind: .gather(job: index), base: gatherJobs[index].base,
                destination: gatherJobs[index].server, key: nil, policy: config.gatherRetransmission)
        }
    }

    /// A reflexive address different from the base and from the ones we
    /// already have becomes a srflx candidate (§5.1.3 drops duplicates). It
    /// is not paired: §6.1.2.4 replaces srflx locals by their base.
    func gatherResponse(_ message: STUNMessage, job: Int) {
        gatherJobs[job].finished = true
        gatherJobs[job].answered = true
        guard message.type.messageClass == .successResponse, let mapped = message.reflexiveAddress else { return }
        let base = gatherJobs[job].base
        noteMapped(mapped, job: job)
        guard mapped.family == base.family, !localCandidates.contains(where: { $0.candidate.address == mapped }),
              let host = localCandidates.first(where: { $0.base == base && $0.candidate.type == .host })
        else { return }
        let candidate = ICECandidate(
            foundation: ICEPriority.foundation(type: .srflx, baseIP: base.ip, server: gatherJobs[job].server),
            priority: ICEPriority.candidate(type: .srflx, localPreference: host.localPreference),
            address: mapped, type: .srflx, related: base, extensions: candidateExtensions)
        localCandidates.append(LocalCandidate(candidate: candidate, base: base, localPreference: host.localPreference))
        announceReflexive(candidate, base: base)
    }

    /// Every STUN lookup and TURN allocation answered or timed out.
    var gatheringDone: Bool { gatherJobs.allSatisfy(\.finished) && relays.allSatisfy(\.finished) }

    /// `gatheringComplete` once every lookup has answered or timed out. It is
    /// reported again if servers or interfaces are added later.
    func finishGatheringIfDone() {
        guard !gatheringCompleteSent, gatheringDone else { return }
        gatheringCompleteSent = true
        emit(.gatheringComplete)
    }

    /// The srflx candidates and gathering restart with the new credentials
    /// (ICE restart, §9): host candidates are trickled again with the new
    /// ufrag.
    func regather() {
        let hosts = localCandidates.filter { $0.candidate.type == .host }
        localCandidates = []
        gatherJobs = []
        gatheringCompleteSent = false
        probing.reset()
        for host in hosts { addLocalInterface(host.base) }
        for mapped in mappedAddresses { announceMapped(mapped.external, base: mapped.base) }
        verifyRelays()
    }
}

import STUN

/// When port probing starts, paces its probes and stops (see
/// `PortProbingConfig` for the design).
extension ICEAgent {
    /// One pass from `runTimers`: classify, start, probe.
    func runPortProbing() {
        guard let settings = config.portProbing else { return }
        flushHeldReflexive()
        guard selectedID == nil, remoteCredentials != nil else { return }
        if probing.side == nil, let side = portProbingSide {
            probing.side = side
            probing.startedAt = now
            if case .hard(let base, _) = side {
                probing.socketRequest = ProbeSocketRequest(base: base, count: settings.hardSideSockets)
            }
        }
        guard let startedAt = probing.startedAt, now < startedAt + settings.patience else { return }
        switch probing.side {
        case .easy(let base, let peerIP)?: sendEasyProbes(from: base, to: peerIP, settings, since: startedAt)
        case .hard(_, let peer)?: sendHardProbes(to: peer, settings, since: startedAt)
        case nil: break
        }
    }

    /// Easy here and hard there: probe at once. Hard here and easy there:
    /// ask for sockets first. Nil while either side's mapping is unknown.
    private var portProbingSide: PortProbingState.Side? {
        let bases = probing.mapping.keys.sorted { $0.description < $1.description }
        if let peerIP = probing.peerHard,
           let base = bases.first(where: { probing.mapping[$0] == .easy && $0.ip.count == peerIP.count }) {
            return .easy(base: base, peerIP: peerIP)
        }
        if let peer = probing.peerEasy, let address = peer.address,
           let base = bases.first(where: { probing.mapping[$0] == .hard && $0.family == address.family }) {
            return .hard(base: base, peer: peer)
        }
        return nil
    }

    /// How many probes are due by now at one per `probeInterval`.
    private func due(since start: Duration, limit: Int, _ settings: PortProbingConfig) -> Int {
        let slots = Int((now - start) / settings.probeInterval) + 1
        return min(limit, slots, probing.sent + settings.maxBurst)
    }

    /// Fire-and-forget checks to random, not yet probed ports: an answer is
    /// not needed, the hard side's triggered check comes back instead.
    private func sendEasyProbes(from base: STUNAddress, to peerIP: [UInt8], _ settings: PortProbingConfig, since start: Duration) {
        guard let credentials = remoteCredentials, let local = localCandidates.first(where: { $0.base == base }) else { return }
        let target = due(since: start, limit: min(settings.easySideProbes, settings.ports.count), settings)
        while probing.sent < target {
            var port = UInt16.random(in: settings.ports, using: &random)
            while probing.probedPorts.contains(port) { port = UInt16.random(in: settings.ports, using: &random) }
            probing.probedPorts.insert(port)
            probing.sent += 1
            guard let destination = STUNAddress(ip: peerIP, port: port) else { continue }
            let request = checkRequest(localPreference: local.localPreference, useCandidate: false)
            transmit(request.encoded(integrity: .shortTerm(password: credentials.pwd), fingerprint: true), from: base, to: destination)
        }
    }

    /// One check-list pair per probe base towards the easy side, each
    /// checked (and retransmitted) like any other pair.
    private func sendHardProbes(to peer: ICECandidate, _ settings: PortProbingConfig, since start: Duration) {
        guard let address = peer.address else { return }
        // After an ICE restart only this generation's sockets are open.
        let locals = probing.locals.filter { !probing.released.contains($0.base) }
        let target = due(since: start, limit: locals.count, settings)
        while probing.sent < target {
            let local = locals[probing.sent]
            probing.sent += 1
            let limit = config.maxPairs + settings.hardSideSockets
            guard let id = checkList.add(local: local, remote: peer, remoteAddress: address, limit: limit) else { continue }
            startCheck(pair: id, useCandidate: false)
            if state == .new { setState(.checking) }
        }
    }

    /// Probing is under way: failure waits, relay nomination waits.
    var portProbingUnderway: Bool {
        guard let settings = config.portProbing, let startedAt = probing.startedAt, selectedID == nil else { return false }
        return now < startedAt + settings.patience
    }

    /// The next probe (or start) time for `pollTimeout`.
    var portProbingDeadline: Duration? {
        guard let settings = config.portProbing, selectedID == nil, remoteCredentials != nil else { return nil }
        if probing.side == nil { return portProbingSide == nil ? nil : now }
        guard let startedAt = probing.startedAt, portProbingUnderway else { return nil }
        let limit: Int
        switch probing.side {
        case .easy?: limit = min(settings.easySideProbes, settings.ports.count)
        case .hard?: limit = probing.locals.count - probing.released.count
        case nil: limit = 0
        }
        guard probing.sent < limit else { return nil }
        return startedAt + settings.probeInterval * probing.sent
    }

    /// The controlling side keeps a relayed pair back while probing may
    /// still find a direct one; returns when to look again.
    func portProbingDefers(nominating id: Int) -> Duration? {
        guard portProbingUnderway, let settings = config.portProbing, let startedAt = probing.startedAt else { return nil }
        let pair = checkList[id]
        guard pair.local.candidate.type == .relay || pair.remote.type == .relay else { return nil }
        return startedAt + settings.patience
    }
}

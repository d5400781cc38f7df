/// When checking gives up, and the sentence that says why.
extension ICEAgent {
    /// Fails when both sides are done trickling and every pair failed
    /// (RFC 8838 §8), or when `connectTimeout` passes without a selected
    /// pair whatever the peer signalled.
    func evaluateFailure() {
        guard selectedID == nil, !state.isFailed else { return }
        let timedOut = now >= startedAt + config.connectTimeout
        let exhausted = remoteEnded && gatheringCompleteSent && remoteCredentials != nil
            && !checkList.hasPendingChecks && !checkList.hasChecksInFlight
            && !checkList.pairs.contains(where: \.valid) && nominatingPair == nil && !portProbingUnderway
        // Relay-only with every allocation given up: nothing can ever connect.
        let noRelay = config.relayOnly && relays.allSatisfy(\.finished)
            && !localCandidates.contains(where: { $0.candidate.type == .relay })
        guard timedOut || exhausted || noRelay else { return }
        var reason = failureReason()
        if timedOut && !exhausted {
            reason = "no connection after \(config.connectTimeout.wholeMilliseconds / 1000) s: " + reason
        }
        transactions = [:]
        transactionOrder = []
        setState(.failed(reason: reason))
    }

    func failureReason() -> String {
        guard !hostBases.isEmpty else { return "no local network address to send from" }
        if config.relayOnly && !localCandidates.contains(where: { $0.candidate.type == .relay }) {
            return "relay-only mode, but no TURN relay could be allocated: \(relayFailures)"
        }
        guard remoteCredentials != nil else {
            return "the peer's ICE credentials (ice-ufrag/ice-pwd) never arrived"
        }
        let signalled = remoteCandidates.filter { $0.type != .prflx }
        let pairs = checkList.pairs
        if pairs.isEmpty {
            if signalled.isEmpty { return "no remote candidates received" }
            if signalled.allSatisfy({ $0.isMDNS }) {
                return "the peer sent only mDNS (.local) host candidates, which this agent does not resolve, and no server-reflexive ones"
            }
            if signalled.allSatisfy({ !$0.isUDP }) { return "the peer sent only TCP candidates; ICE over TCP is not supported" }
            return "none of the \(signalled.count) remote candidates can be paired with a local one (different address family or unusable address)"
        }
        let stunSilent = !gatherJobs.isEmpty && gatherJobs.allSatisfy { $0.finished && !$0.answered }
        if stunSilent && pairs.allSatisfy({ $0.state == .failed }) {
            return "all \(pairs.count) candidate pairs failed and the STUN server never answered: this network seems to block UDP; a TURN relay over TCP is needed (\(relayFailures))"
        }
        if remoteEnded && pairs.allSatisfy({ $0.state == .failed }) {
            return "all \(pairs.count) candidate pairs failed: the peer's network blocks UDP or both sides are behind symmetric NATs; a TURN relay is needed (\(relayFailures))"
        }
        let failed = pairs.filter { $0.state == .failed }.count
        if pairs.contains(where: \.valid) {
            return "checks succeeded on \(pairs.filter(\.valid).count) of \(pairs.count) pairs but the controlling agent never nominated one"
        }
        return "\(failed) of \(pairs.count) candidate pairs failed and the rest got no answer: the peer's network blocks UDP or both sides are behind symmetric NATs; a TURN relay is needed (\(relayFailures))"
    }
}

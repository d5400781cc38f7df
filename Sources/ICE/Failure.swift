/// When checking gives up, and why.
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
            reason = .timedOut(seconds: Int(config.connectTimeout.wholeMilliseconds / 1000), cause: reason)
        }
        transactions = [:]
        transactionOrder = []
        setState(.failed(reason))
    }

    /// A failed generation hears from the peer after all (`handleCheckRequest`):
    /// it checks again, with a fresh `connectTimeout`.
    func checkAgain() {
        startedAt = now
        setState(.checking)
    }

    func failureReason() -> ICEFailure {
        guard !hostBases.isEmpty else { return .noLocalAddress }
        if config.relayOnly && !localCandidates.contains(where: { $0.candidate.type == .relay }) {
            return .noRelayAllocated(relayOutcome)
        }
        guard remoteCredentials != nil else {
            return .noRemoteCredentials
        }
        let signalled = remoteCandidates.filter { $0.type != .prflx }
        let pairs = checkList.pairs
        if pairs.isEmpty {
            if signalled.isEmpty { return .noRemoteCandidates }
            if signalled.allSatisfy({ $0.isMDNS }) {
                return .onlyMDNSCandidates
            }
            if signalled.allSatisfy({ !$0.isUDP }) { return .onlyTCPCandidates }
            return .noUsablePairs(remoteCandidates: signalled.count)
        }
        let stunSilent = !gatherJobs.isEmpty && gatherJobs.allSatisfy { $0.finished && !$0.answered }
        if stunSilent && pairs.allSatisfy({ $0.state == .failed }) {
            return .udpBlocked(pairs: pairs.count, relays: relayOutcome)
        }
        if remoteEnded && pairs.allSatisfy({ $0.state == .failed }) {
            return .allPairsFailed(pairs: pairs.count, relays: relayOutcome)
        }
        let failed = pairs.filter { $0.state == .failed }.count
        if pairs.contains(where: \.valid) {
            return .neverNominated(valid: pairs.filter(\.valid).count, pairs: pairs.count)
        }
        return .noAnswer(failed: failed, pairs: pairs.count, relays: relayOutcome)
    }
}

/// Regular nomination (RFC 8445 §8.1): the controlling agent waits a
/// little after the first valid pair for better ones, then repeats the
/// check of the best valid pair with USE-CANDIDATE. Both sides select the
/// nominated pair.
extension ICEAgent {
    /// Starts the nomination timer on the first valid pair, or nominates at
    /// once when no unchecked pair could beat this one.
    func pairBecameValid(_ id: Int) {
        guard role == .controlling, nominatingPair == nil, selectedID == nil else { return }
        let best = checkList.highest(role: role) { $0.state != .failed }
        if best == id {
            nominationAt = now
        } else if nominationAt.map({ $0 > now + config.nominationDelay }) ?? true {
            // Sooner than a relay nomination held back for port probing.
            nominationAt = now + config.nominationDelay
        }
    }

    func runNomination() {
        guard let at = nominationAt, now >= at else { return }
        nominationAt = nil
        guard role == .controlling, nominatingPair == nil, selectedID == nil, remoteCredentials != nil,
              let id = checkList.highest(role: role, where: { $0.valid && $0.state == .succeeded })
        else { return }
        if let later = portProbingDefers(nominating: id) ?? directCheckDefers(nominating: id) {
            nominationAt = later
            return
        }
        nominatingPair = id
        startCheck(pair: id, useCandidate: true)
    }

    /// A relayed pair waits while a direct pair's check is still under way
    /// (its retransmissions may yet be answered under loss), at most
    /// `directPatience` after that check began; returns when to look again.
    func directCheckDefers(nominating id: Int) -> Duration? {
        guard checkList[id].isRelayed else { return nil }
        let pending = checkList.pairs.filter { $0.state == .inProgress && !$0.isRelayed }.compactMap(\.checkedSince)
        guard let first = pending.min(), now < first + config.directPatience else { return nil }
        return first + config.directPatience
    }

    func nominationFailed(pair id: Int) {
        guard nominatingPair == id else { return }
        nominatingPair = nil
        if checkList.pairs.contains(where: { $0.valid && $0.state == .succeeded && $0.id != id }) {
            nominationAt = now
        }
    }

    /// Called after a role switch to controlling: nominate among what is
    /// already valid.
    func reconsiderNomination() {
        guard role == .controlling, selectedID == nil, nominatingPair == nil, nominationAt == nil,
              checkList.pairs.contains(where: \.valid)
        else { return }
        nominationAt = now + config.nominationDelay
    }

    /// A pair is nominated (§7.2.5.3.4, §7.3.1.5) and selected unless a
    /// higher-priority nominated pair already is.
    func nominated(pair id: Int) {
        checkList[id].nominated = true
        checkList[id].nominateOnSuccess = false
        if nominatingPair == id { nominatingPair = nil }
        if let current = selectedID, current != id,
           checkList[current].priority(role: role) >= checkList[id].priority(role: role) {
            return
        }
        select(pair: id)
    }

    private func select(pair id: Int) {
        let changed = selectedID != id
        selectedID = id
        selectedPair = checkList[id].snapshot
        guard changed, let snapshot = selectedPair else { return }
        emit(.selectedPairChanged(snapshot))
        bindRelayChannel(for: snapshot)
        // §8.1.2: stop checking pairs that can no longer matter.
        checkList.pruneAfterNomination()
        let priority = checkList[id].priority(role: role)
        for (txID, entry) in transactions {
            guard case .check(let other, false) = entry.kind, other != id,
                  checkList[other].priority(role: role) < priority
            else { continue }
            transactions[txID]?.cancelled = true
            if checkList[other].state == .inProgress { checkList[other].state = .failed }
        }
        startConsent()
        setState(.connected)
    }

    /// `completed` once checks are over and both sides have signalled
    /// end-of-candidates.
    func updateCompletion() {
        guard state == .connected, selectedID != nil, remoteEnded, gatheringCompleteSent,
              !checkList.hasPendingChecks, !checkList.hasChecksInFlight
        else { return }
        setState(.completed)
    }
}

import STUN

/// Our side of connectivity checks (RFC 8445 §7.2): sending Binding
/// requests on pairs and learning from the answers.
extension ICEAgent {
    /// One new check per Ta (§6.1.4.2), and only once the peer's password
    /// is known (it keys MESSAGE-INTEGRITY).
    func sendPacedCheck() {
        guard remoteCredentials != nil, now >= nextCheckAt else { return }
        // Frozen pairs whose foundation is still being checked wait; look
        // again one Ta later rather than spinning.
        nextCheckAt = now + config.checkInterval
        guard let id = checkList.nextToCheck(role: role) else { return }
        startCheck(pair: id, useCandidate: false)
        if state == .new { setState(.checking) }
    }

    /// Binding request per §7.2.2: USERNAME `remote:local`, PRIORITY of a
    /// would-be peer-reflexive candidate, the role with our tie-breaker,
    /// USE-CANDIDATE when nominating, MESSAGE-INTEGRITY with the peer's
    /// password, FINGERPRINT.
    func startCheck(pair id: Int, useCandidate: Bool) {
        guard let credentials = remoteCredentials else { return }
        let pair = checkList[id]
        let request = checkRequest(localPreference: pair.local.localPreference, useCandidate: useCandidate)
        if !useCandidate { checkList[id].state = .inProgress }
        if checkList[id].checkedSince == nil { checkList[id].checkedSince = now }
        startTransaction(
            request, kind: .check(pair: id, useCandidate: useCandidate), base: pair.local.base,
            destination: pair.remoteAddress, key: .shortTerm(password: credentials.pwd),
            policy: config.checkRetransmission)
    }

    /// The request itself, before MESSAGE-INTEGRITY and FINGERPRINT; needs
    /// `remoteCredentials`.
    func checkRequest(localPreference: UInt16, useCandidate: Bool) -> STUNMessage {
        var attributes: [STUNAttribute] = [
            .username("\(remoteCredentials?.ufrag ?? ""):\(localCredentials.ufrag)"),
            .priority(ICEPriority.candidate(type: .prflx, localPreference: localPreference)),
            role == .controlling ? .iceControlling(tieBreaker: tieBreaker) : .iceControlled(tieBreaker: tieBreaker),
        ]
        if useCandidate { attributes.append(.useCandidate) }
        return STUNMessage(type: .bindingRequest, transactionID: randomTransactionID(), attributes: attributes)
    }

    /// §7.2.5: error answers, the symmetry rule, then a valid pair.
    func checkResponse(
        _ message: STUNMessage, entry: Outstanding, pair id: Int, useCandidate: Bool,
        source: STUNAddress, base: STUNAddress
    ) {
        guard checkList.contains(id) else { return }
        if message.type.messageClass == .errorResponse {
            if message.errorCode?.code == 487 {
                // §7.2.5.1: switch to the role opposite the one the request
                // claimed, and check the pair again.
                let claimed = entry.claimedRole ?? role
                switchRole(to: claimed.opposite)
                checkList[id].state = .waiting
                checkList.enqueueTriggered(id)
            } else {
                checkFailed(pair: id, nominating: useCandidate)
            }
            return
        }
        // §7.2.5.2.1: the answer must come from where we sent, to where we
        // sent from; otherwise the path is not symmetric and fails.
        guard source == entry.destination, base == entry.base, let mapped = message.reflexiveAddress else {
            checkFailed(pair: id, nominating: useCandidate)
            return
        }
        let local = localCandidate(mapped: mapped, base: base)
        var pair = checkList[id]
        pair.mappedLocal = local
        pair.state = .succeeded
        pair.valid = true
        pair.rtt = now - entry.startedAt
        checkList[id] = pair
        checkList.unfreeze(foundation: pair.foundation)
        if id == selectedID { refreshConsent(pair: id) }
        if useCandidate || (role == .controlled && pair.nominateOnSuccess) {
            nominated(pair: id)
        } else {
            pairBecameValid(id)
        }
    }

    func checkFailed(pair id: Int, nominating: Bool) {
        guard checkList.contains(id) else { return }
        if nominating {
            checkList[id].valid = false
            nominationFailed(pair: id)
        }
        if checkList[id].state != .succeeded || nominating { checkList[id].state = .failed }
    }

    /// The local candidate the peer saw (§7.2.5.3.1): one we know, or a new
    /// peer-reflexive one with the priority our request carried. Local prflx
    /// candidates are not trickled.
    func localCandidate(mapped: STUNAddress, base: STUNAddress) -> ICECandidate {
        if let known = localCandidates.first(where: { $0.candidate.address == mapped && $0.base == base }) {
            return known.candidate
        }
        guard let host = localCandidates.first(where: { $0.base == base && $0.candidate.type == .host }) else {
            return ICECandidate(
                foundation: ICEPriority.foundation(type: .prflx, baseIP: base.ip), priority: 0, address: mapped,
                type: .prflx, related: base, extensions: [])
        }
        let candidate = ICECandidate(
            foundation: ICEPriority.foundation(type: .prflx, baseIP: base.ip),
            priority: ICEPriority.candidate(type: .prflx, localPreference: host.localPreference),
            address: mapped, type: .prflx, related: base, extensions: [])
        localCandidates.append(LocalCandidate(candidate: candidate, base: base, localPreference: host.localPreference))
        return candidate
    }

    /// A signalled candidate whose address we first learned as peer
    /// reflexive takes over its pairs (RFC 8838 §11.4).
    func replacePeerReflexive(with candidate: ICECandidate) {
        guard candidate.type != .prflx,
              let index = remoteCandidates.firstIndex(where: { $0.address == candidate.address && $0.type == .prflx })
        else { return }
        remoteCandidates[index] = candidate
        for pair in checkList.pairs where pair.remote.address == candidate.address {
            checkList[pair.id].remote = candidate
        }
        // The selected pair reports the signalled type (a relay shows as `relay`).
        if let id = selectedID { selectedPair = checkList[id].snapshot }
    }

    func switchRole(to newRole: ICERole) {
        guard newRole != role else { return }
        role = newRole
        emit(.roleChanged(newRole))
        if newRole == .controlled {
            nominationAt = nil
            nominatingPair = nil
        } else {
            reconsiderNomination()
        }
    }
}

extension Outstanding {
    /// The role our request claimed: read back from the request bytes we
    /// signed, so a role switch since then does not confuse us.
    var claimedRole: ICERole? {
        guard let request = try? STUNMessage.decode(transaction.request) else { return nil }
        if request.contains(.iceControlling) { return .controlling }
        if request.contains(.iceControlled) { return .controlled }
        return nil
    }
}

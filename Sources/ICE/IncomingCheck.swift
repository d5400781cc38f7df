import STUN

/// The peer's connectivity checks (RFC 8445 §7.3): authenticate, resolve
/// role conflicts, answer, learn peer-reflexive candidates and trigger our
/// own check back.
extension ICEAgent {
    func handleCheckRequest(_ request: STUNMessage, datagram: [UInt8], from source: STUNAddress, base: STUNAddress) {
        // A wrong FINGERPRINT means this is not a STUN message for us.
        guard STUNMessage.verifyFingerprint(of: datagram) != .invalid else { return }
        let unknown = request.unknownComprehensionRequiredAttributes
        guard unknown.isEmpty else {
            return reject(request, .unknownAttribute, unknown: unknown, from: base, to: source)
        }
        // RFC 8489 §9.1.3: missing credentials are 400, wrong ones 401.
        guard let username = request.username, request.contains(.messageIntegrity) || request.contains(.messageIntegritySHA256)
        else { return reject(request, .badRequest, from: base, to: source) }
        let localKey = STUNKey.shortTerm(password: localCredentials.pwd)
        guard username.hasPrefix(localCredentials.ufrag + ":"),
              STUNMessage.verifyIntegrity(of: datagram, key: localKey) == .valid
        else { return reject(request, .unauthenticated, from: base, to: source) }
        guard let priority = request.priority else { return reject(request, .badRequest, from: base, to: source) }

        if resolveRoleConflict(request) == true {
            return reject(request, .roleConflict, from: base, to: source, key: localKey)
        }

        let response = STUNMessage(
            type: .bindingSuccess, transactionID: request.transactionID, attributes: [.xorMappedAddress(source)])
        transmit(response.encoded(integrity: localKey, fingerprint: true), from: base, to: source)

        // Every check of ours failed (say the path was cut longer than our
        // patience), yet the peer's check, with this generation's
        // credentials, came through: the path works again. Check again
        // rather than answer it for ever with no pair selected (the peer
        // would then think the path works while nothing of ours reached it).
        if state.isFailed { checkAgain() }

        // Once a pair is selected no new pairs are formed (§8.1.2), but a
        // known pair still answers with a triggered check so the peer can
        // finish its checks or nominate on it.
        let id = selectedID == nil
            ? pairForIncomingCheck(base: base, source: source, priority: priority)
            : checkList.pairID(base: base, remote: source)
        guard let id else { return }
        triggerCheck(pair: id)
        noteUseCandidate(request, pair: id)
    }

    /// §7.3.1.1. Returns `true` when we keep our role and answer 487,
    /// `false` after switching, `nil` without a conflict.
    private func resolveRoleConflict(_ request: STUNMessage) -> Bool? {
        for attribute in request.attributes {
            switch (role, attribute) {
            case (.controlling, .iceControlling(let theirs)):
                if tieBreaker >= theirs { return true }
                switchRole(to: .controlled)
                return false
            case (.controlled, .iceControlled(let theirs)):
                if tieBreaker >= theirs {
                    switchRole(to: .controlling)
                    return false
                }
                return true
            default:
                continue
            }
        }
        return nil
    }

    /// The pair the check arrived on; an unknown source becomes a
    /// peer-reflexive remote candidate with the request's PRIORITY
    /// (§7.3.1.3), paired with the receiving base.
    private func pairForIncomingCheck(base: STUNAddress, source: STUNAddress, priority: UInt32) -> Int? {
        if let id = checkList.pairID(base: base, remote: source) { return id }
        guard let local = pairableLocals.first(where: { $0.base == base }) ?? probeLocal(base) else { return nil }
        let remote: ICECandidate
        if let known = remoteCandidates.first(where: { $0.address == source && $0.isUDP }) {
            remote = known
        } else {
            guard remoteCandidates.count < config.maxRemoteCandidates else { return nil }
            remote = ICECandidate(
                foundation: ICEPriority.foundation(type: .prflx, baseIP: source.ip), priority: priority,
                address: source, type: .prflx, related: nil, extensions: [])
            remoteCandidates.append(remote)
        }
        let limit = config.maxPairs + (config.portProbing?.hardSideSockets ?? 0)
        return checkList.add(local: local, remote: remote, remoteAddress: source, limit: limit)
    }

    /// §7.3.1.4: Waiting, Frozen and Failed pairs get a triggered check; an
    /// In-Progress check is cancelled and re-sent as a triggered one, which
    /// gets through a NAT the earlier attempt may have hit before the
    /// peer's own check opened it.
    private func triggerCheck(pair id: Int) {
        switch checkList[id].state {
        case .succeeded:
            return
        case .inProgress:
            for (txID, entry) in transactions {
                if case .check(id, false) = entry.kind { transactions[txID]?.cancelled = true }
            }
        case .waiting, .frozen, .failed:
            break
        }
        checkList[id].state = .waiting
        checkList.enqueueTriggered(id)
    }

    /// §7.3.1.5: USE-CANDIDATE on the controlled side nominates the pair
    /// once (or as soon as) our own check on it has succeeded.
    private func noteUseCandidate(_ request: STUNMessage, pair id: Int) {
        guard role == .controlled, request.contains(.useCandidate) else { return }
        if checkList[id].state == .succeeded && checkList[id].valid {
            nominated(pair: id)
        } else {
            checkList[id].nominateOnSuccess = true
        }
    }

    private func reject(
        _ request: STUNMessage, _ code: STUNErrorCode, unknown: [STUNAttributeType] = [],
        from base: STUNAddress, to source: STUNAddress, key: STUNKey? = nil
    ) {
        var attributes: [STUNAttribute] = [.errorCode(code)]
        if !unknown.isEmpty { attributes.append(.unknownAttributes(unknown)) }
        let type = STUNMessageType(method: request.type.method, messageClass: .errorResponse)
        let answer = STUNMessage(type: type, transactionID: request.transactionID, attributes: attributes)
        transmit(answer.encoded(integrity: key, fingerprint: true), from: base, to: source)
    }
}

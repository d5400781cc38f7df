import STUN

/// RFC 7675 consent freshness on the selected pair.
struct ConsentState: Sendable {
    var active = false
    var lost = false
    var nextSendAt: Duration?
    /// Last authenticated answer to any of our requests on the pair.
    var lastResponseAt: Duration = .zero
}

extension ICEAgent {
    func startConsent() {
        consent = ConsentState(active: true, lost: false, nextSendAt: now + jitteredConsentInterval(), lastResponseAt: now)
    }

    /// RFC 7675 §5.1: the interval is randomized to 0.8…1.2 × its value so
    /// many sessions do not synchronise.
    private func jitteredConsentInterval() -> Duration {
        let factor = 800 + Int64(random.next(upperBound: UInt64(401)))
        return .milliseconds(config.consentInterval.wholeMilliseconds * factor / 1000)
    }

    func consentDeadline() -> Duration? {
        guard consent.active, !consent.lost, selectedID != nil else { return nil }
        var deadline = consent.lastResponseAt + config.consentTimeout
        if let next = consent.nextSendAt { deadline = min(deadline, next) }
        if state != .disconnected { deadline = min(deadline, consent.lastResponseAt + config.disconnectedTimeout) }
        return deadline
    }

    func runConsent() {
        guard consent.active, !consent.lost, let id = selectedID, let credentials = remoteCredentials else { return }
        let silence = now - consent.lastResponseAt
        if silence >= config.consentTimeout {
            consent.lost = true
            consent.active = false
            for (txID, entry) in transactions {
                if case .consent = entry.kind { finishTransaction(txID) }
            }
            emit(.consentLost)
            let seconds = config.consentTimeout.wholeMilliseconds / 1000
            setState(.failed(.consentExpired(seconds: Int(seconds))))
            return
        }
        if silence >= config.disconnectedTimeout, state.isConnected { setState(.disconnected) }
        guard let next = consent.nextSendAt, now >= next else { return }
        consent.nextSendAt = now + jitteredConsentInterval()
        let pair = checkList[id]
        let request = STUNMessage(type: .bindingRequest, transactionID: randomTransactionID(), attributes: [
            .username("\(credentials.ufrag):\(localCredentials.ufrag)"),
            .priority(ICEPriority.candidate(type: .prflx, localPreference: pair.local.localPreference)),
            role == .controlling ? .iceControlling(tieBreaker: tieBreaker) : .iceControlled(tieBreaker: tieBreaker),
        ])
        startTransaction(
            request, kind: .consent(pair: id), base: pair.local.base, destination: pair.remoteAddress,
            key: .shortTerm(password: credentials.pwd), policy: config.consentRetransmission)
    }

    /// Only authenticated success answers from the pair's remote address
    /// count (RFC 7675 §5.1); the peer's own checks do not.
    func consentResponse(_ message: STUNMessage, entry: Outstanding, pair id: Int, source: STUNAddress, base: STUNAddress) {
        guard message.type.messageClass == .successResponse, source == entry.destination, base == entry.base,
              checkList.contains(id)
        else { return }
        checkList[id].rtt = now - entry.startedAt
        refreshConsent(pair: id)
    }

    func refreshConsent(pair id: Int) {
        guard id == selectedID, consent.active, !consent.lost else { return }
        consent.lastResponseAt = now
        selectedPair = checkList[id].snapshot
        if state == .disconnected { setState(.connected) }
    }
}

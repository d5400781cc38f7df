import STUN

/// A STUN request of ours waiting for an answer.
struct Outstanding: Sendable {
    enum Kind: Hashable, Sendable {
        case check(pair: Int, useCandidate: Bool)
        case gather(job: Int)
        case consent(pair: Int)
    }

    var transaction: STUNTransaction
    let kind: Kind
    let base: STUNAddress
    let destination: STUNAddress
    /// The key the request was signed with; answers must carry the same.
    let key: STUNKey?
    let startedAt: Duration
    /// RFC 8445 §7.2.5.4: a cancelled check is not retransmitted and its
    /// timeout means nothing, but an answer still counts.
    var cancelled = false
}

extension ICEAgent {
    func startTransaction(
        _ request: STUNMessage, kind: Outstanding.Kind, base: STUNAddress, destination: STUNAddress,
        key: STUNKey?, policy: STUNRetransmissionPolicy
    ) {
        let bytes = request.encoded(integrity: key, fingerprint: true)
        var transaction = STUNTransaction(id: request.transactionID, request: bytes, policy: policy, now: now)
        if let first = transaction.pollTransmit() { transmit(first, from: base, to: destination) }
        transactions[request.transactionID] = Outstanding(
            transaction: transaction, kind: kind, base: base, destination: destination, key: key, startedAt: now)
        transactionOrder.append(request.transactionID)
    }

    func finishTransaction(_ id: STUNTransactionID) {
        transactions[id] = nil
        transactionOrder.removeAll { $0 == id }
    }

    /// Retransmits what is due and reports what timed out.
    func serviceTransactions() {
        for id in transactionOrder {
            guard var entry = transactions[id] else { continue }
            entry.transaction.handleTimeout(now: now)
            if entry.transaction.state == .timedOut {
                finishTransaction(id)
                if !entry.cancelled { transactionTimedOut(entry) }
                continue
            }
            if let bytes = entry.transaction.pollTransmit(), !entry.cancelled {
                transmit(bytes, from: entry.base, to: entry.destination)
            }
            transactions[id] = entry
        }
    }

    private func transactionTimedOut(_ entry: Outstanding) {
        switch entry.kind {
        case .check(let id, let useCandidate): checkFailed(pair: id, nominating: useCandidate)
        case .gather(let job): gatherJobs[job].finished = true
        case .consent: break // expiry is judged by time since the last answer
        }
    }

    /// Matches a response to its request, authenticates it and hands it on.
    func handleResponse(_ message: STUNMessage, datagram: [UInt8], from source: STUNAddress, base: STUNAddress) {
        guard let entry = transactions[message.transactionID],
              STUNMessage.verifyFingerprint(of: datagram) != .invalid
        else { return }
        if let key = entry.key {
            switch STUNMessage.verifyIntegrity(of: datagram, key: key) {
            case .valid: break
            case .invalid: return
            // Error answers to bad credentials (400, 401) carry no MAC.
            case .absent: if message.type.messageClass == .successResponse { return }
            }
        }
        if !message.unknownComprehensionRequiredAttributes.isEmpty { return }
        finishTransaction(message.transactionID)
        switch entry.kind {
        case .gather(let job):
            gatherResponse(message, job: job)
        case .check(let pair, let useCandidate):
            checkResponse(message, entry: entry, pair: pair, useCandidate: useCandidate, source: source, base: base)
        case .consent(let pair):
            consentResponse(message, entry: entry, pair: pair, source: source, base: base)
        }
    }
}

import STUN

/// Starting requests and acting on their outcomes.
extension TURNClient {
    /// How often one request is retried after 438 before giving up, so a
    /// server that keeps calling every nonce stale cannot loop us forever.
    static let maxStaleNonceRetries = 3

    func start(_ request: TURNRequest, staleNonceRetries: Int = 0) {
        var id = STUNTransactionID.random(using: &random)
        while outstanding[id] != nil { id = STUNTransactionID.random(using: &random) }
        let message = STUNMessage(
            type: STUNMessageType(method: request.method, messageClass: .request),
            transactionID: id,
            attributes: request.attributes + auth.attributes)
        outstanding[id] = Outstanding(
            request: request, authenticated: auth.key != nil, staleNonceRetries: staleNonceRetries)
        stun.start(message, to: server, now: now, integrity: auth.key)
        collectTransmits()
    }

    func requestPermission(_ peer: STUNAddress) {
        guard permissions.want(peer), allocation.state == .allocated else { return }
        permissions.markRequested(peer)
        start(.createPermission(peer: peer))
    }

    /// Sends through an installed permission or a bound channel.
    func transmitData(_ bytes: [UInt8], to peer: STUNAddress) {
        permissions.touch(peer)
        if let number = channels.boundNumber(for: peer) {
            channels.touch(peer)
            enqueueTransmit(ChannelData(number: number, data: bytes).encoded(padded: transport == .tcp))
            return
        }
        var id = STUNTransactionID.random(using: &random)
        while outstanding[id] != nil { id = STUNTransactionID.random(using: &random) }
        let indication = STUNMessage(
            type: STUNMessageType(method: .send, messageClass: .indication),
            transactionID: id,
            attributes: [.xorPeerAddress(peer), .data(bytes)])
        enqueueTransmit(indication.encoded())
    }

    func drainSTUNEvents() {
        while let event = stun.pollEvent() {
            switch event {
            case .response(let response): handleResponse(response.message)
            case .timeout(let id):
                if let entry = outstanding.removeValue(forKey: id) {
                    failed(entry.request, reason: .timedOut(method: entry.request.method))
                }
            }
        }
    }

    private func handleResponse(_ message: STUNMessage) {
        guard let entry = outstanding.removeValue(forKey: message.transactionID) else { return }
        guard message.type.method == entry.request.method else {
            failed(entry.request, reason: .mismatchedResponse(method: entry.request.method, answered: message.type.method))
            return
        }
        if message.type.messageClass == .successResponse {
            succeeded(entry.request, message)
            return
        }
        switch message.errorCode?.code {
        case 401 where !entry.authenticated:
            guard auth.learn(from: message) else {
                failed(entry.request, reason: .noChallenge)
                return
            }
            start(entry.request)
        case 438 where entry.staleNonceRetries < Self.maxStaleNonceRetries && auth.learn(from: message):
            start(entry.request, staleNonceRetries: entry.staleNonceRetries + 1)
        default:
            failed(entry.request, reason: .rejected(method: entry.request.method, code: message.errorCode?.code,
                                                     reason: message.errorCode?.reason ?? ""))
        }
    }

    private func succeeded(_ request: TURNRequest, _ message: STUNMessage) {
        switch request {
        case .allocate:
            guard allocation.state == .allocating else { return }
            guard let relayed = message.xorRelayedAddress else {
                close(with: .failed(.noRelayedAddress))
                return
            }
            allocation.state = .allocated
            allocation.relayed = relayed
            allocation.mapped = message.xorMappedAddress
            allocation.granted(seconds: message.lifetime ?? Allocation.defaultLifetime, now: now)
            emit(.allocated(relayed: relayed, mapped: allocation.mapped, lifetime: allocation.lifetime))
            // Permissions and channels asked for while allocating.
            for peer in permissions.unrequested {
                permissions.markRequested(peer)
                start(.createPermission(peer: peer))
            }
            for (peer, number) in channels.unrequested {
                channels.markRequested(peer)
                start(.channelBind(peer: peer, number: number))
            }
        case .refresh(lifetime: 0):
            close(with: .deallocated)
        case .refresh:
            guard allocation.state == .allocated else { return }
            let seconds = message.lifetime ?? requestedLifetime
            // A server may answer a Refresh with LIFETIME 0 when it is
            // deleting the allocation; it is gone then.
            guard seconds > 0 else {
                close(with: .failed(.allocationEnded))
                return
            }
            allocation.granted(seconds: seconds, now: now)
            emit(.refreshed(lifetime: allocation.lifetime))
        case .createPermission(let peer):
            installed(peer)
        case .channelBind(let peer, let number):
            if channels.bound(peer, now: now) { emit(.channelBound(peer, number: number)) }
            // A ChannelBind also installs or refreshes the permission (§11.2).
            installed(peer)
        }
    }

    private func installed(_ peer: STUNAddress) {
        let (first, queue) = permissions.installed(peer, now: now)
        if first { emit(.permissionCreated(peer)) }
        for item in queue { transmitData(item.bytes, to: item.peer) }
    }

    private func failed(_ request: TURNRequest, reason: TURNFailure) {
        switch request {
        case .allocate:
            close(with: .failed(reason))
        case .refresh(lifetime: 0):
            // Leaving anyway: an error (often 437, already gone) or silence
            // both end with the allocation deleted or soon expired.
            close(with: .deallocated)
        case .refresh:
            close(with: .failed(reason))
        case .createPermission(let peer):
            if let known = permissions.failed(peer) { emit(.permissionFailed(known, reason: reason)) }
        case .channelBind(let peer, _):
            channels.failed(peer)
            emit(.channelBindFailed(peer, reason: reason))
        }
    }
}

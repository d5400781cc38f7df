/// Stream reset (RFC 6525), which WebRTC uses to close a data channel
/// (RFC 8831 §6.7): each side resets its outgoing stream.
extension SCTPAssociation {
    /// Requests an Outgoing SSN Reset for `streams` once all data already
    /// queued on them has been sent. `.outgoingStreamReset` reports success.
    public func resetStreams(_ streams: [UInt16]) throws(SCTPError) {
        guard !terminated, [.established, .cookieWait, .cookieEchoed].contains(state) else { throw .notConnected }
        for s in streams where !pendingResets.contains(s) && !(reconfigRequest?.streams.contains(s) ?? false) {
            pendingResets.append(s)
        }
    }

    /// Only one request is outstanding at a time (RFC 6525 §5.1.1). Resets
    /// asked for before `close` still go out: SHUTDOWN waits for them.
    func issueStreamResetIfReady() {
        guard reconfigRequest == nil, !pendingResets.isEmpty, state == .established || state == .shutdownPending else { return }
        let ready = pendingResets.filter { !sendQueue.contains(stream: $0) }
        guard !ready.isEmpty else { return }
        let streams = Array(ready.prefix(256))
        pendingResets.removeAll { streams.contains($0) }
        // New messages on these streams start again at SSN 0.
        for s in streams { outgoingSSN[s] = nil }
        reconfigRequest = (nextRequestSequence, streams, retransmissionQueue.nextTSN &- 1)
        nextRequestSequence &+= 1
        sendReconfigRequest()
    }

    func sendReconfigRequest() {
        guard let r = reconfigRequest else { return }
        controlChunks.append(.reconfig([.outgoingResetRequest(requestSequence: r.sequence, responseSequence: peerNextRequestSequence &- 1,
                                                              senderLastTSN: r.lastTSN, streams: r.streams)]))
        reconfigDeadline = now + rto.rto
    }

    func handleReconfigTimeout() {
        reconfigDeadline = nil
        guard reconfigRequest != nil else { return }
        sendReconfigRequest()
    }

    func handleReconfig(_ params: [ReconfigParameter]) {
        guard acceptsSack else { return }
        var responses: [ReconfigParameter] = []
        for p in params {
            switch p {
            case .outgoingResetRequest(let seq, _, let lastTSN, let streams):
                if seq == peerNextRequestSequence {
                    if tsnLessOrEqual(lastTSN, tracker.cumulativeTSN) {
                        performIncomingReset(seq, streams)
                        responses.append(.response(responseSequence: seq, result: ReconfigParameter.Result.successPerformed))
                    } else {
                        // Data before the reset is still missing (§5.2.2): defer.
                        deferredReset = (seq, lastTSN, streams)
                        responses.append(.response(responseSequence: seq, result: ReconfigParameter.Result.inProgress))
                    }
                } else if let last = lastResponse, last.sequence == seq {
                    responses.append(.response(responseSequence: seq, result: last.result))
                } else {
                    responses.append(.response(responseSequence: seq, result: ReconfigParameter.Result.errorBadSequenceNumber))
                }
            case .incomingResetRequest(let seq, _), .addOutgoingStreams(let seq, _), .addIncomingStreams(let seq, _):
                if seq == peerNextRequestSequence {
                    peerNextRequestSequence &+= 1
                    lastResponse = (seq, ReconfigParameter.Result.denied)
                }
                responses.append(.response(responseSequence: seq, result: ReconfigParameter.Result.denied))
            case .response(let seq, let result):
                guard let r = reconfigRequest, r.sequence == seq else { continue }
                if result == ReconfigParameter.Result.inProgress {
                    reconfigDeadline = now + rto.rto
                    continue
                }
                reconfigRequest = nil
                reconfigDeadline = nil
                emit(.outgoingStreamReset(r.streams))
                maybeStartShutdown()
            case .unknown:
                continue
            }
        }
        if !responses.isEmpty { controlChunks.append(.reconfig(responses)) }
    }

    func performIncomingReset(_ seq: UInt32, _ streams: [UInt16]) {
        var delivered: [ReassembledMessage] = []
        reassembly.resetStreams(streams, into: &delivered)
        emitDelivered(delivered)
        deferredReset = nil
        peerNextRequestSequence &+= 1
        lastResponse = (seq, ReconfigParameter.Result.successPerformed)
        emit(.streamReset(streams))
    }

    func performDeferredReset() {
        guard let d = deferredReset else { return }
        performIncomingReset(d.sequence, d.streams)
        controlChunks.append(.reconfig([.response(responseSequence: d.sequence, result: ReconfigParameter.Result.successPerformed)]))
    }
}

/// Graceful shutdown (RFC 9260 §9.2): SHUTDOWN once our data is all acked,
/// SHUTDOWN ACK once the peer's is, SHUTDOWN COMPLETE to finish; T2 guards
/// each step.
extension SCTPAssociation {
    func afterAcknowledgement() {
        maybeStartShutdown()
        maybeSendShutdownAck()
    }

    /// Channels closed just before (RFC 8831 §6.7) have their resets answered first.
    func maybeStartShutdown() {
        guard state == .shutdownPending, isFullyAcknowledged, reconfigRequest == nil, pendingResets.isEmpty else { return }
        state = .shutdownSent
        t2Retransmits = 0
        sendShutdown()
    }

    func maybeSendShutdownAck() {
        guard state == .shutdownReceived, isFullyAcknowledged else { return }
        state = .shutdownAckSent
        t2Retransmits = 0
        sendShutdownAck()
        emit(.peerShutDown)
    }

    func sendShutdown() {
        controlChunks.append(.shutdown(cumulativeTSNAck: tracker.cumulativeTSN))
        t2Deadline = now + rto.rto
    }

    func sendShutdownAck() {
        controlChunks.append(.shutdownAck)
        t2Deadline = now + rto.rto
    }

    func handleShutdown(cumulativeTSNAck cum: UInt32) {
        switch state {
        case .established, .shutdownPending, .shutdownReceived:
            state = .shutdownReceived
            handleCumulativeAck(cum)
            maybeSendShutdownAck()
        case .shutdownSent:
            // Both sides closed at once: answer with SHUTDOWN ACK (§9.2).
            handleCumulativeAck(cum)
            state = .shutdownAckSent
            t2Retransmits = 0
            sendShutdownAck()
        default: break
        }
    }

    func handleShutdownAck() {
        guard state == .shutdownSent || state == .shutdownAckSent else { return }
        outbox.append(packet(tag: peerTag, chunks: [.shutdownComplete(reflectedTag: false)]))
        terminate(.shutdown, sendAbort: false)
    }

    func handleShutdownComplete() {
        guard state == .shutdownAckSent else { return }
        terminate(.shutdown, sendAbort: false)
    }

    func handleT2Timeout() {
        t2Retransmits += 1
        if t2Retransmits > config.maxAssociationRetransmits {
            terminate(.timeout, sendAbort: true)
            return
        }
        rto.backOff()
        if state == .shutdownSent { sendShutdown() } else if state == .shutdownAckSent { sendShutdownAck() } else { t2Deadline = nil }
    }
}

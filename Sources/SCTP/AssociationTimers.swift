extension SCTPAssociation {
    /// The earliest deadline at which ``handleTimeout(now:)`` must be called,
    /// on the same clock as `now`; nil when no timer runs.
    public func pollTimeout() -> Duration? {
        guard !terminated else { return nil }
        var earliest: Duration?
        for d in [t1Deadline, t2Deadline, t3Deadline, ackDeadline, reconfigDeadline, pathMTU.deadline, pacingDeadline,
                  mayBundle ? redundancyDeadline : nil] {
            if let d, earliest.map({ d < $0 }) ?? true { earliest = d }
        }
        return earliest
    }

    public func handleTimeout(now: Duration) {
        self.now = now
        guard !terminated else { return }
        if let d = ackDeadline, d <= now {
            ackDeadline = nil
            if sackNeeded { sackImmediately = true }
        }
        if let d = t1Deadline, d <= now { handleT1Timeout() }
        if let d = t3Deadline, d <= now, !terminated { handleRetransmissionTimeout() }
        if let d = t2Deadline, d <= now, !terminated { handleT2Timeout() }
        if let d = reconfigDeadline, d <= now, !terminated { handleReconfigTimeout() }
        if let d = pathMTU.deadline, d <= now, !terminated { handlePathMTUTimeout() }
    }

    /// T1-init / T1-cookie (RFC 9260 §5.1 C, §6.3.3).
    func handleT1Timeout() {
        t1Retransmits += 1
        guard t1Retransmits <= config.maxInitRetransmits, let chunk = t1Chunk else {
            terminate(.timeout, sendAbort: false)
            return
        }
        rto.backOff()
        t1SentAt = now
        t1Deadline = now + rto.rto
        if case .initiate = chunk {
            outbox.append(packet(tag: 0, chunks: [chunk]))
        } else {
            outbox.append(packet(tag: peerTag, chunks: [chunk]))
        }
    }
}

extension SCTPAssociation {
    var acceptsSack: Bool {
        switch state {
        case .closed, .cookieWait, .cookieEchoed: return false
        default: return true
        }
    }

    /// Sender-side SACK processing (RFC 9260 §6.2.1, §7.2). Work is
    /// proportional to what the SACK newly acknowledges, plus the chunks below
    /// the highest newly acked TSN when there are gaps.
    func handleSack(_ s: SackChunk) {
        guard acceptsSack else { return }
        let cumAck = retransmissionQueue.firstTSN &- 1
        // Older than our ack point (reordered SACK), or acking what we never sent.
        guard tsnLessOrEqual(cumAck, s.cumulativeTSNAck), tsnLess(s.cumulativeTSNAck, retransmissionQueue.nextTSN) else { return }
        let fullyUtilized = flightSize >= congestion.window
        let cumAdvanced = s.cumulativeTSNAck != cumAck
        var bytesAcked = 0
        var rttSample: Duration?
        var highestNewlyAcked: UInt32?
        /// When the most recently sent of the newly acknowledged chunks sent
        /// once left (RACK's RACK.xmit_ts, RFC 8985 §6.1).
        var latestDelivered: Duration?
        while !retransmissionQueue.isEmpty, tsnLessOrEqual(retransmissionQueue.firstTSN, s.cumulativeTSNAck) {
            let tsn = retransmissionQueue.firstTSN
            guard let c = retransmissionQueue.popFirst() else { break }
            if c.flags & DataChunk.endingFlag != 0, c.ppid != DataChannelPPID.dcep {
                acknowledgedMessages[c.streamID, default: 0] += 1
            }
            if !c.gapAcked {
                bytesAcked += c.size
                deliveryRate.acknowledged(bytes: c.size, stamp: c.delivery, sentAt: c.sentAt, now: now)
                highestNewlyAcked = tsn
                // Karn: only chunks sent exactly once give RTT samples.
                if c.transmissions == 1 {
                    rttSample = now - c.sentAt
                    latestDelivered = max(latestDelivered ?? c.sentAt, c.sentAt)
                }
            }
            if c.inFlight { flightSize -= c.size }
        }
        let base = s.cumulativeTSNAck
        for g in s.gapAckBlocks where g.start <= g.end && g.start > 0 {
            var tsn = base &+ UInt32(g.start)
            let end = base &+ UInt32(g.end)
            // Clamp the block to what is outstanding.
            if tsnLess(tsn, retransmissionQueue.firstTSN) { tsn = retransmissionQueue.firstTSN }
            guard !retransmissionQueue.isEmpty else { break }
            let last = tsnLess(end, retransmissionQueue.lastTSN) ? end : retransmissionQueue.lastTSN
            guard tsnLessOrEqual(tsn, last), var i = retransmissionQueue.index(of: tsn) else { continue }
            while true {
                if !retransmissionQueue[i].gapAcked {
                    retransmissionQueue[i].gapAcked = true
                    retransmissionQueue[i].needsRetransmit = false
                    let size = retransmissionQueue[i].size
                    bytesAcked += size
                    deliveryRate.acknowledged(bytes: size, stamp: retransmissionQueue[i].delivery,
                                              sentAt: retransmissionQueue[i].sentAt, now: now)
                    if retransmissionQueue[i].inFlight {
                        retransmissionQueue[i].inFlight = false
                        flightSize -= size
                    }
                    if highestNewlyAcked.map({ tsnLess($0, tsn) }) ?? true { highestNewlyAcked = tsn }
                    if retransmissionQueue[i].transmissions == 1 {
                        let sentAt = retransmissionQueue[i].sentAt
                        rttSample = now - sentAt
                        latestDelivered = max(latestDelivered ?? sentAt, sentAt)
                    }
                }
                if tsn == last { break }
                tsn &+= 1
                i += 1
            }
        }
        // Miss indications for chunks below the highest newly acked TSN (§7.2.4).
        // A chunk fast-retransmitted once gets no second fast retransmit
        // from them; instead its retransmission counts as lost again when a
        // chunk sent more than a quarter round trip after it was acknowledged
        // (RACK, RFC 8985 §6.2), rather than waiting for T3 to collapse cwnd.
        var lossDetected = false
        let reorderWindow = (rto.srtt ?? .zero) / 4
        if let htna = highestNewlyAcked, !retransmissionQueue.isEmpty, tsnLess(retransmissionQueue.firstTSN, htna) {
            for i in retransmissionQueue.indices {
                let tsn = retransmissionQueue.tsn(at: i)
                if !tsnLess(tsn, htna) { break }
                if retransmissionQueue[i].gapAcked || retransmissionQueue[i].needsRetransmit { continue }
                if retransmissionQueue[i].fastRetransmitted {
                    if let latest = latestDelivered, retransmissionQueue[i].inFlight,
                       retransmissionQueue[i].sentAt + reorderWindow < latest {
                        statistics.lostRetransmissions += 1
                        markForRetransmit(at: i, tsn: tsn)
                        lossDetected = true
                    }
                    continue
                }
                retransmissionQueue[i].missIndications += 1
                if retransmissionQueue[i].missIndications >= 3 {
                    statistics.fastRetransmissions += 1
                    retransmissionQueue[i].fastRetransmitted = true
                    markForRetransmit(at: i, tsn: tsn)
                    lossDetected = true
                }
            }
        }
        if lossDetected, congestion.onFastRetransmit(highestOutstanding: retransmissionQueue.lastTSN) {
            fastRetransmitBypass = true
        }
        if let r = rttSample {
            rto.measure(r)
            if congestion.onRTTSample(r, cumulativeTSN: s.cumulativeTSNAck, highestSent: retransmissionQueue.nextTSN &- 1) {
                statistics.slowStartDelayExits += 1
            }
        }
        congestion.onAcknowledged(bytesAcked: bytesAcked, cumulativeAdvanced: cumAdvanced, fullyUtilized: fullyUtilized,
                                  cumulativeTSN: s.cumulativeTSNAck, now: now, rtt: rto.srtt)
        let sample = deliveryRate.takeSample(now: now, minRTT: congestion.bbr?.minRTT)
        congestion.onDeliveryRateSample(sample, bytesAcked: bytesAcked, totalDelivered: deliveryRate.delivered, rtt: rttSample,
                                        flightSize: flightSize, cumulativeTSN: s.cumulativeTSNAck, now: now)
        peerReceiverWindow = max(0, Int(s.advertisedReceiverWindowCredit) - flightSize)
        if cumAdvanced { errorCount = 0 }
        if retransmissionQueue.isEmpty {
            t3Deadline = nil
            congestion.onAllAcknowledged()
        } else if cumAdvanced || t3Deadline == nil {
            t3Deadline = now + rto.rto
        }
        afterAcknowledgement()
    }

    func markForRetransmit(at i: Int, tsn: UInt32) {
        congestion.onLoss(bytes: retransmissionQueue[i].size)
        retransmissionQueue[i].needsRetransmit = true
        retransmissionQueue[i].missIndications = 0
        if retransmissionQueue[i].inFlight {
            retransmissionQueue[i].inFlight = false
            flightSize -= retransmissionQueue[i].size
        }
        if let last = retransmitList.last, !tsnLess(last, tsn) { retransmitListUnsorted = true }
        retransmitList.append(tsn)
    }

    /// The cumulative ack of a SHUTDOWN chunk acts like a SACK without gaps.
    func handleCumulativeAck(_ cum: UInt32) {
        handleSack(SackChunk(cumulativeTSNAck: cum, advertisedReceiverWindowCredit: UInt32(max(0, peerReceiverWindow + flightSize))))
    }

    /// T3-rtx expiry (RFC 9260 §6.3.3): back off, collapse cwnd and
    /// retransmit every outstanding chunk not yet gap-acknowledged.
    func handleRetransmissionTimeout() {
        errorCount += 1
        statistics.t3Expirations += 1
        if errorCount > config.maxAssociationRetransmits {
            terminate(.timeout, sendAbort: true)
            return
        }
        rto.backOff()
        checkPathMTUBlackHole()
        retransmitOutstanding()
    }

    /// Everything in flight and not gap-acknowledged is sent again, from a
    /// collapsed congestion window (RFC 9260 §6.3.3 E1, E3).
    func retransmitOutstanding() {
        congestion.onRetransmissionTimeout()
        retransmitList.removeAll(keepingCapacity: true)
        retransmitListUnsorted = false
        for i in retransmissionQueue.indices where !retransmissionQueue[i].gapAcked {
            retransmissionQueue[i].inFlight = false
            retransmissionQueue[i].needsRetransmit = true
            retransmissionQueue[i].missIndications = 0
            retransmitList.append(retransmissionQueue.tsn(at: i))
        }
        flightSize = 0
        fastRetransmitBypass = false
        t3Deadline = retransmissionQueue.isEmpty ? nil : now + rto.rto
    }
}

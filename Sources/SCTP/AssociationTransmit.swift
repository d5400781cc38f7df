import Wire
extension SCTPAssociation {
    var mayBundle: Bool {
        switch state {
        case .closed: return !terminated && peerTag != 0 && !controlChunks.isEmpty
        case .cookieWait: return false
        default: return peerTag != 0
        }
    }

    var mayQueueNewData: Bool {
        switch state {
        case .established, .shutdownPending, .shutdownReceived: return true
        default: return false
        }
    }

    var canSendRetransmission: Bool {
        !retransmitList.isEmpty && (fastRetransmitBypass || congestion.mayRetransmit(flightSize: flightSize))
    }

    var canSendNewData: Bool {
        retransmitList.isEmpty && mayQueueNewData && !sendQueue.isEmpty && flightSize < congestion.window
            && (peerReceiverWindow > 0 || flightSize == 0)
    }

    /// When the pacer lets the next DATA packet go, if that is all that
    /// holds it back: a deadline for ``pollTimeout()``.
    var pacingDeadline: Duration? {
        guard congestion.pacingRate != nil, !terminated, mayBundle, canSendRetransmission || canSendNewData,
              !pacer.isReady(now: now) else { return nil }
        return pacer.nextBurstAt
    }

    /// Takes one datagram from the pacer's current burst, if it has one.
    private func pace() -> Bool {
        // A plain Double, not the optional: the optimizer (Swift 6.3,
        // CopyPropagation) crashed on an optional rate passed to `take`.
        let rate = congestion.pacingRate ?? 0, burst = congestion.burstPackets, mtu = packetSize, at = now
        return pacer.take(now: at, rate: rate, burstPackets: burst, mtu: mtu)
    }

    /// The next packet to send, nil when there is nothing to send now.
    /// Call repeatedly until nil after every input, timeout or `send`.
    public func pollTransmit(now: Duration) -> [UInt8]? {
        self.now = now
        if let packet = outbox.popFirst() { return packet }
        guard !terminated, mayBundle else { return nil }
        issueStreamResetIfReady()
        var retransmitting = canSendRetransmission
        var newData = !retransmitting && canSendNewData
        if !retransmitting && !newData && sendQueue.isEmpty && retransmitList.isEmpty && flightSize < congestion.window
            && deliveryRate.appLimitedUntil == 0 {
            deliveryRate.markApplicationLimited(flightSize: flightSize)
        }
        if (retransmitting || newData) && !pace() {
            retransmitting = false
            newData = false
        }
        let copies = redundantCopyDue
        guard !controlChunks.isEmpty || sackImmediately || retransmitting || newData || copies else { return nil }

        var out: [UInt8] = []
        out.reserveCapacity(packetSize)
        SCTPPacket.writeHeader(into: &out, sourcePort: config.localPort, destinationPort: config.remotePort, verificationTag: peerTag)
        let limit = packetSize
        var wroteAny = false
        while let c = controlChunks.first {
            let size = ChunkEncoder.encodedSize(c)
            if wroteAny && out.count + size > limit { break }
            ChunkEncoder.encode(c, into: &out)
            _ = controlChunks.popFirst()
            wroteAny = true
        }
        // Bundle a pending SACK with anything we send (RFC 9260 §6.2).
        if sackNeeded {
            let sack = SCTPChunk.sack(makeSack())
            if !wroteAny || out.count + ChunkEncoder.encodedSize(sack) <= limit {
                ChunkEncoder.encode(sack, into: &out)
                wroteAny = true
            } else {
                sackNeeded = true
                sackImmediately = true
            }
        }
        if copies, writeRedundantCopies(into: &out, limit: limit) { wroteAny = true }
        if retransmitting {
            if writeRetransmissions(into: &out, limit: limit) { wroteAny = true }
        } else if newData {
            if writeNewData(into: &out, limit: limit) { wroteAny = true }
        }
        guard wroteAny else { return nil }
        SCTPPacket.finalize(&out)
        return out
    }

    private func writeRetransmissions(into out: inout [UInt8], limit: Int) -> Bool {
        if retransmitListUnsorted {
            let anchor = retransmissionQueue.firstTSN
            retransmitList.sort { ($0 &- anchor) < ($1 &- anchor) }
            retransmitListUnsorted = false
        }
        let bypass = fastRetransmitBypass
        fastRetransmitBypass = false
        var taken = 0
        var wrote = false
        for tsn in retransmitList {
            guard let i = retransmissionQueue.index(of: tsn), retransmissionQueue[i].needsRetransmit else {
                taken += 1
                continue
            }
            let c = retransmissionQueue[i]
            if out.count + 16 + ((c.size + 3) & ~3) > limit { break }
            if !bypass && !congestion.mayRetransmit(flightSize: flightSize) { break }
            if !bypass && flightSize >= congestion.window { congestion.spendRecoveryCredit(c.size) }
            ChunkEncoder.encode(.data(DataChunk(flags: c.flags, tsn: tsn, streamID: c.streamID, streamSequence: c.streamSequence,
                                                ppid: c.ppid, userData: c.payload)), into: &out)
            retransmissionQueue[i].needsRetransmit = false
            retransmissionQueue[i].inFlight = true
            retransmissionQueue[i].transmissions += 1
            retransmissionQueue[i].missIndications = 0
            retransmissionQueue[i].sentAt = now
            retransmissionQueue[i].delivery = deliveryRate.stamp(now: now, flightBefore: flightSize, size: c.size)
            flightSize += c.size
            statistics.retransmittedChunks += 1
            taken += 1
            wrote = true
        }
        retransmitList.removeFirst(taken)
        if wrote { t3Deadline = now + rto.rto }
        return wrote
    }

    private func writeNewData(into out: inout [UInt8], limit: Int) -> Bool {
        // Fragments are cut for the base size and bundled up to the path MTU:
        // if the path later carries less (a black hole, a new ICE path),
        // everything outstanding still fits a base-size packet.
        let maxFragment = config.maxFragmentSize
        var wrote = false
        while let n = sendQueue.nextFragmentSize(max: maxFragment) {
            if out.count + 16 + ((n + 3) & ~3) > limit { break }
            if flightSize >= congestion.window { break }
            // Respect the peer's window; with nothing in flight one chunk may
            // probe a zero window (RFC 9260 §6.1 rule A).
            if n > peerReceiverWindow && flightSize > 0 { break }
            let tsn = retransmissionQueue.nextTSN
            guard let d = sendQueue.takeFragment(max: maxFragment, tsn: tsn) else { break }
            ChunkEncoder.encode(.data(d), into: &out)
            noteFirstTransmission(d, size: n)
            retransmissionQueue.append(OutstandingChunk(flags: d.flags, streamID: d.streamID, streamSequence: d.streamSequence,
                                                        ppid: d.ppid, payload: d.userData, sentAt: now,
                                                        delivery: deliveryRate.stamp(now: now, flightBefore: flightSize, size: n)))
            flightSize += n
            statistics.dataChunksSent += 1
            peerReceiverWindow = max(0, peerReceiverWindow - n)
            wrote = true
        }
        if wrote && t3Deadline == nil { t3Deadline = now + rto.rto }
        return wrote
    }
}

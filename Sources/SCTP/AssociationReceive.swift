extension SCTPAssociation {
    var acceptsData: Bool {
        switch state {
        case .established, .shutdownPending, .shutdownSent: return true
        default: return false
        }
    }

    func handleData(_ d: DataChunk) {
        guard acceptsData else { return }
        sackNeeded = true
        statistics.dataChunksReceived += 1
        guard tracker.isNew(d.tsn) else {
            statistics.duplicateChunksReceived += 1
            if !tracker.isTooFarAhead(d.tsn) { tracker.noteDuplicate(d.tsn) }
            sackImmediately = true
            return
        }
        // Out of buffer space: drop (§6.2). The next expected TSN is still
        // taken while the space is held by incomplete or blocked messages
        // only, since only it can complete or unblock them (one message's
        // fragments have consecutive TSNs): a full window cannot deadlock.
        // At most one more message's worth, though: a peer that never lets
        // a message complete (or skips an SSN, so nothing after it can be
        // delivered) gets no more than that.
        let cost = ReassemblyQueue.cost(d)
        if cost > receiverWindow {
            guard d.tsn == tracker.cumulativeTSN &+ 1, unreadBytes == 0,
                  reassembly.bufferedBytes + cost <= config.receiveBufferSize + config.maxMessageSize
            else { return }
        }
        tracker.receive(d.tsn)
        if d.userData.isEmpty { return }  // §3.3.1: no user data; acknowledge, deliver nothing
        if d.streamID >= inboundStreamCount {
            // Invalid Stream Identifier (cause 1), data discarded (§6.5).
            var cause: [UInt8] = []
            cause.appendU16(1); cause.appendU16(8); cause.appendU16(d.streamID); cause.appendU16(0)
            controlChunks.append(.error(causes: cause[...]))
            return
        }
        var delivered: [ReassembledMessage] = []
        reassembly.add(d, into: &delivered)
        emitDelivered(delivered)
    }

    func emitDelivered(_ delivered: [ReassembledMessage]) {
        for m in delivered {
            if m.tooLarge { reportDiscarded(stream: m.streamID) } else { emit(.message(stream: m.streamID, ppid: m.ppid, bytes: m.bytes)) }
        }
    }

    /// A message over `maxMessageSize` was discarded (`ReassemblyQueue`):
    /// the application hears it, and so does the peer, in an ERROR chunk
    /// with a Protocol Violation cause (RFC 9260 §3.3.10.13) whose text says
    /// what happened, since its stack considers the message delivered.
    func reportDiscarded(stream: UInt16) {
        statistics.messagesDiscarded += 1
        emit(.messageTooLarge(stream: stream))
        let info = Array("a message on stream \(stream) was larger than the a=max-message-size of \(config.maxMessageSize) bytes and was discarded".utf8)
        var cause: [UInt8] = []
        cause.appendU16(13)
        cause.appendU16(UInt16(4 + info.count))
        cause.append(contentsOf: info)
        while cause.count % 4 != 0 { cause.append(0) }
        controlChunks.append(.error(causes: cause[...]))
    }

    func handleForwardTSN(_ f: ForwardTSNChunk) {
        guard acceptsData else { return }
        sackNeeded = true
        sackImmediately = true
        guard tsnLess(tracker.cumulativeTSN, f.newCumulativeTSN), !tracker.isTooFarAhead(f.newCumulativeTSN) else { return }
        tracker.forward(to: f.newCumulativeTSN)
        var delivered: [ReassembledMessage] = []
        reassembly.skip(to: f.newCumulativeTSN, streams: f.streams, into: &delivered)
        emitDelivered(delivered)
    }

    /// Delayed-ack policy (RFC 9260 §6.2): every second packet with DATA, at
    /// once on gaps or duplicates, otherwise within the delayed-ack timeout.
    func afterDataReceived(hadGaps: Bool) {
        guard sackNeeded else { return }
        dataPacketsSinceSack += 1
        if tracker.hasGaps || !tracker.duplicates.isEmpty || dataPacketsSinceSack >= 2 || state != .established {
            sackImmediately = true
        }
        // A gap just closed: tell the sender quickly. (Not "the cumulative
        // TSN moved by more than one": a packet bundling several small
        // messages does that without any gap, and acking each such packet
        // at once doubled the SACKs for small-message traffic.)
        if hadGaps { sackImmediately = true }
        if !sackImmediately && ackDeadline == nil { ackDeadline = now + config.delayedAckTimeout }
        if let d = deferredReset, tsnLessOrEqual(d.lastTSN, tracker.cumulativeTSN) { performDeferredReset() }
    }

    func makeSack() -> SackChunk {
        // As many 4-byte gap blocks as a base-size packet holds with the
        // duplicates: after a burst of losses the sender learns of every
        // hole and of what arrived beyond (its flight size is wrong
        // otherwise, and recovery stalls until T3). A SACK this large goes
        // in a packet of its own.
        let room = config.maxPacketSize - SCTPPacket.commonHeaderSize - 16 - 4 * tracker.duplicates.count
        let maxBlocks = max(1, room / 4)
        let window = receiverWindow
        lastAdvertisedWindow = window
        let sack = SackChunk(cumulativeTSNAck: tracker.cumulativeTSN, advertisedReceiverWindowCredit: UInt32(window),
                             gapAckBlocks: tracker.gapBlocks(limit: maxBlocks), duplicateTSNs: tracker.duplicates)
        tracker.clearDuplicates()
        statistics.sacksSent += 1
        sackNeeded = false
        sackImmediately = false
        dataPacketsSinceSack = 0
        ackDeadline = nil
        return sack
    }
}

import FileTransfer
import PeerConnection
import SCTP

/// The data path: channel events in, messages out, bounded by the send buffer.
extension FileTransfers {
    /// One round on the session's current connection (called by the
    /// session after every input once the peer may be talked to, see
    /// `ChatSession.serviceTransfers`): the channels' events in, what the
    /// cores want to send out while the send buffer has room, progress. True
    /// if anything moved, so the driver flushes the connection and calls again.
    func service(on pc: any PeerTransport, now: Duration) -> Bool {
        self.now = now
        pc.routesChannels = true
        var moved = false
        startWaiting(on: pc)
        if retryStalled() { moved = true }
        // A receiver whose disk is behind stops the reading: what follows stays
        // in the connection, counted against SCTP's window, until its wake.
        while !isStalled, let event = pc.pollChannelEvent() {
            handle(event, on: pc)
            moved = true
        }
        for t in transfers.values.sorted(by: { $0.id < $1.id }) where !t.finished {
            if drain(t, on: pc) { moved = true }
            report(t, now: now)
        }
        if moved { pc.flushChannels() }
        return moved
    }

    /// The session's connection ended (the peer's process came back, or
    /// ours, or the path was replaced): what ran on it was cut off. Our
    /// offers go out again on the next one; the peer's come again.
    func connectionEnded() {
        for t in transfers.values.sorted(by: { $0.id < $1.id }) where !t.finished && t.channel != nil {
            t.channel = nil
            if t.sender != nil, t.source?.canSeek == true {
                countBytes(t)
                t.sender = nil
                waiting.append(t.id)
                emit(.interrupted(id: t.id, .sending))
            } else if let receiver = t.receiver, !receiver.isFinished {
                receiver.channelClosed()
                finish(t, .interrupted(id: t.id, .receiving), on: nil)
            } else {
                t.sender?.channelClosed()
                finishWithEvents(t, on: nil)
            }
        }
    }

    func startWaiting(on pc: any PeerTransport) {
        guard !waiting.isEmpty else { return }
        let ids = waiting
        waiting = []
        for id in ids {
            guard let t = transfers[id], let source = t.source, !t.finished else { continue }
            do {
                let channel = try pc.openChannel(label: Self.channelLabel, protocolName: Self.protocolName)
                let sender = FileSender(source: source, readAhead: readsAhead, wake: wake)
                t.sender = sender
                t.channel = channel
                sender.start()
            } catch {
                finish(t, .failed(id: id, .sending, reason: error.description), on: pc)
            }
        }
    }

    func handle(_ event: DataChannelEvent, on pc: any PeerTransport) {
        switch event {
        case .channelOpen(let channel, let label):
            guard label == Self.channelLabel, transfer(on: channel) == nil else { return }
            let t = Transfer(id: nextID, source: nil, total: nil)
            nextID += 1
            t.channel = channel
            transfers[t.id] = t
            // The receiver and its sink are made once the offer is known (`firstMessage`).
        case .message(let channel, let message):
            guard case .binary(let bytes) = message, let t = transfer(on: channel) else { return }
            if let sender = t.sender {
                sender.handle(message: bytes)
            } else if let receiver = t.receiver {
                if !receiver.handle(message: bytes) { t.stalled = bytes }
            } else {
                firstMessage(bytes, for: t, on: pc)
            }
        case .messageTooLarge(let channel):
            // A message of the transfer is lost: it cannot go on.
            guard let t = transfer(on: channel) else { return }
            let reason = "protocol violation: a message larger than the channel's limit"
            t.sender?.cancel(reason)
            t.receiver?.cancel(reason)
            if t.sender == nil && t.receiver == nil { finish(t, .failed(id: t.id, t.direction, reason: reason), on: pc) }
            finishWithEvents(t, on: pc)
        case .channelClosed(let channel):
            guard let t = transfer(on: channel) else { return }
            t.channel = nil
            t.sender?.channelClosed()
            t.receiver?.channelClosed()
            if t.sender == nil && t.receiver == nil { t.finished = true }
            finishWithEvents(t, on: pc)
        case .closed:
            for t in transfers.values where t.channel != nil {
                t.channel = nil
                t.sender?.channelClosed()
                t.receiver?.channelClosed()
                finishWithEvents(t, on: pc)
            }
        case .connected:
            break
        }
    }

    /// Whether a receiver left a message unconsumed (its write queue is full).
    var isStalled: Bool { transfers.values.contains { $0.stalled != nil } }

    /// Offers each unconsumed message again (after the disk's wake); true if one was taken.
    func retryStalled() -> Bool {
        var taken = false
        for t in transfers.values.sorted(by: { $0.id < $1.id }) {
            guard let bytes = t.stalled else { continue }
            guard let receiver = t.receiver, !t.finished, t.channel != nil else {
                t.stalled = nil
                continue
            }
            if receiver.handle(message: bytes) {
                t.stalled = nil
                taken = true
            }
        }
        return taken
    }

    /// The peer's first message on a new channel must be its offer.
    func firstMessage(_ bytes: [UInt8], for t: Transfer, on pc: any PeerTransport) {
        guard case .offer(let offer)? = TransferMessage.decode(bytes) else {
            let reason = "protocol violation: the first message was not a valid offer"
            if let channel = t.channel {
                try? pc.send(binary: TransferMessage.abort(reason).encode(), on: channel)
                pc.closeChannel(channel)
            }
            finish(t, .failed(id: t.id, .receiving, reason: reason), on: pc)
            return
        }
        let receiver = FileReceiver(sink: makeSink(offer), readAhead: readsAhead, wake: wake)
        t.meter = ProgressMeter(total: offer.totalSize)
        t.receiver = receiver
        receiver.handle(message: bytes)
        _ = receiver.pollEvent()
        if autoAccept || acceptedBefore.contains(offer) {
            receiver.accept()
        }
        // Declined at once (too large for the disk): the failure says it all.
        if receiver.isFinished { return }
        emit(.offered(id: t.id, offer))
        if receiver.isAwaitingAnswer == false, !receiver.isFinished { emit(.accepted(id: t.id)) }
    }

    /// Moves one transfer's messages out; true if anything moved.
    func drain(_ t: Transfer, on pc: any PeerTransport) -> Bool {
        guard let channel = t.channel else { return false }
        var moved = false
        do {
            if let receiver = t.receiver {
                while let m = receiver.pollMessage() {
                    try pc.send(binary: m, on: channel)
                    moved = true
                }
            }
            if let sender = t.sender {
                while pc.bufferedAmount < Self.highWater, var m = sender.pollMessage() {
                    if let corruptChunk, m.count > 1, m[0] == 7 {
                        chunksSent += 1
                        if chunksSent == corruptChunk { m[m.count / 2] ^= 0x01 }
                    }
                    try pc.send(binary: m, on: channel)
                    moved = true
                }
            }
        } catch {
            t.sender?.channelClosed()
            t.receiver?.channelClosed()
        }
        finishWithEvents(t, on: pc)
        return moved
    }

    /// Hands the cores' events to the user; a finished transfer closes its channel.
    func finishWithEvents(_ t: Transfer, on pc: (any PeerTransport)?) {
        let direction = t.direction
        while let e = t.sender?.pollEvent() {
            switch e {
            case .accepted: emit(.accepted(id: t.id))
            case .declined(let reason): finish(t, .declined(id: t.id, reason: reason), on: pc)
            case .fileDone(let path, let ok): emit(.fileDone(id: t.id, direction, path: path, ok: ok))
            case .finished(let mismatches):
                finish(t, .finished(id: t.id, direction, location: nil, mismatches: mismatches,
                                    transferred: t.sender?.bytesSent ?? 0, resumed: t.sender?.bytesSkipped ?? 0), on: pc)
            case .failed(let reason): finish(t, .failed(id: t.id, direction, reason: reason), on: pc)
            }
        }
        while let e = t.receiver?.pollEvent() {
            switch e {
            case .offer, .fileStarted: break
            case .fileDone(let path, let ok): emit(.fileDone(id: t.id, direction, path: path, ok: ok))
            case .finished(let location, let mismatches):
                finish(t, .finished(id: t.id, direction, location: location, mismatches: mismatches,
                                    transferred: t.receiver?.bytesReceived ?? 0, resumed: t.receiver?.bytesResumed ?? 0), on: pc)
            case .failed(let reason): finish(t, .failed(id: t.id, direction, reason: reason), on: pc)
            }
        }
    }

    /// `pc`: the connection `t`'s channel is on, nil when it is gone.
    func finish(_ t: Transfer, _ update: Update, on pc: (any PeerTransport)?) {
        guard !t.finished else { return }
        t.finished = true
        countBytes(t)
        t.meter.record(t.done, now: now, resumed: t.resumed)
        emit(update)
        // The sender closes the channel once the receiver confirmed (or on failure); what is queued still goes out first.
        if let channel = t.channel, let pc {
            if let receiver = t.receiver { while let m = receiver.pollMessage() { try? pc.send(binary: m, on: channel) } }
            if let sender = t.sender { while let m = sender.pollMessage() { try? pc.send(binary: m, on: channel) } }
            if t.sender != nil || t.receiver?.isFinished == true && isFailure(update) { pc.closeChannel(channel) }
        }
    }

    /// Adds what `t`'s sender or receiver moved to the chat's totals, before it is dropped.
    func countBytes(_ t: Transfer) {
        bytesSentBefore += t.sender?.bytesSent ?? 0
        bytesReceivedBefore += t.receiver?.bytesReceived ?? 0
    }

    func isFailure(_ update: Update) -> Bool {
        if case .failed = update { return true }
        return false
    }

    func report(_ t: Transfer, now: Duration) {
        guard !t.finished, t.sender != nil || t.receiver?.isAwaitingAnswer == false else { return }
        if let last = t.lastProgress, now - last < progressInterval { return }
        t.lastProgress = now
        t.meter.record(t.done, now: now, resumed: t.resumed)
        emit(.progress(id: t.id, t.direction, done: t.meter.done, total: t.meter.total, rate: t.meter.rate, eta: t.meter.eta))
    }

    func transfer(on channel: UInt16) -> Transfer? {
        transfers.values.first { $0.channel == channel && !$0.finished }
    }
}

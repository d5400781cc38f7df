extension SCTPAssociation {
    /// Processes one received SCTP packet (one decrypted DTLS record).
    /// Malformed, mis-tagged or late packets are dropped silently.
    public func handleInput(packet bytes: [UInt8], now: Duration) {
        self.now = now
        guard !terminated else { return answerOutOfTheBlue(bytes) }
        guard let packet = SCTPPacket.decode(bytes), !packet.chunks.isEmpty else { return }
        guard verificationTagAcceptable(packet) else { return }
        statistics.packetsReceived += 1
        var receivedData = false
        let hadGaps = tracker.hasGaps
        chunkLoop: for chunk in packet.chunks {
            if terminated { break }
            switch chunk {
            case .data(let d):
                receivedData = true
                handleData(d)
            case .initiate(let i): handleInit(i)
            case .initAck(let i): handleInitAck(i)
            case .cookieEcho(let c): handleCookieEcho(c)
            case .cookieAck: handleCookieAck()
            case .sack(let s): handleSack(s)
            case .heartbeat(let info):
                if peerTag != 0 { controlChunks.append(.heartbeatAck(info: info)) }
            case .heartbeatAck(let info): handleHeartbeatAck(info)
            case .abort:
                terminate(.abortedByPeer, sendAbort: false)
                break chunkLoop
            case .error(let causes): handleError(causes)
            case .shutdown(let cum): handleShutdown(cumulativeTSNAck: cum)
            case .shutdownAck: handleShutdownAck()
            case .shutdownComplete: handleShutdownComplete()
            case .forwardTSN(let f):
                handleForwardTSN(f)
                receivedData = true
            case .reconfig(let params): handleReconfig(params)
            case .unknown(let type, let flags, let value):
                // Upper two bits (RFC 9260 §3.2): 01 and 11 report, 00 and 01 stop.
                if type & 0x40 != 0 {
                    var cause: [UInt8] = []
                    cause.appendU16(6)  // Unrecognized Chunk Type
                    cause.appendU16(UInt16(truncatingIfNeeded: 8 + value.count))
                    ChunkEncoder.writeRaw(type, flags, value, into: &cause)
                    if peerTag != 0 { controlChunks.append(.error(causes: cause[...])) }
                }
                if type & 0x80 == 0 { break chunkLoop }
            }
        }
        if receivedData && !terminated { afterDataReceived(hadGaps: hadGaps) }
    }

    /// RFC 9260 §8.4 rule 5: a SHUTDOWN ACK that arrives after the
    /// association ended (our SHUTDOWN COMPLETE was lost) is answered with a
    /// SHUTDOWN COMPLETE, T bit set, carrying the ACK's own verification tag,
    /// so the peer ends its side cleanly instead of retransmitting until it
    /// times out. Anything else for the ended association is dropped.
    func answerOutOfTheBlue(_ bytes: [UInt8]) {
        guard closeReason == .shutdown, let received = SCTPPacket.decode(bytes), case .shutdownAck? = received.chunks.first else { return }
        outbox.append(packet(tag: received.verificationTag, chunks: [.shutdownComplete(reflectedTag: true)]))
    }

    /// RFC 9260 §8.5 verification tag rules.
    func verificationTagAcceptable(_ packet: SCTPPacket) -> Bool {
        let first = packet.chunks[0]
        switch first {
        case .initiate:
            // INIT must be alone and carry tag 0.
            return packet.verificationTag == 0 && packet.chunks.count == 1
        case .abort(let reflected, _), .shutdownComplete(let reflected):
            if reflected { return peerTag != 0 && packet.verificationTag == peerTag }
            return packet.verificationTag == localTag
        default:
            if packet.chunks.contains(where: { if case .initiate = $0 { return true } else { return false } }) { return false }
            return packet.verificationTag == localTag
        }
    }

    // MARK: Handshake (RFC 9260 §5)

    func handleInit(_ i: InitChunk) {
        // A zero tag or stream count is invalid (§3.3.2); ignore rather than abort.
        guard i.initiateTag != 0, i.outboundStreams != 0, i.inboundStreams != 0 else { return }
        // In every state we answer with our one fixed tag and a fresh cookie:
        // that handles a plain INIT, an INIT collision (§5.2.1) and a
        // duplicate INIT after establishment (§5.2.2, with the same tags).
        let cookie = StateCookie(timestamp: nowMilliseconds, localTag: localTag, peerTag: i.initiateTag,
                                 peerInitialTSN: i.initialTSN, peerReceiverWindow: i.advertisedReceiverWindowCredit,
                                 peerOutboundStreams: i.outboundStreams, peerInboundStreams: i.inboundStreams,
                                 peerSupportsForwardTSN: i.supportsForwardTSN, peerSupportsReconfig: i.supportsReconfig,
                                 peerSupportsPad: i.supportsPad)
        var ack = makeInit()
        ack.parameters.append(.stateCookie(cookie.encode(key: cookieKey)))
        outbox.append(packet(tag: i.initiateTag, chunks: [.initAck(ack)]))
    }

    func handleInitAck(_ i: InitChunk) {
        guard state == .cookieWait, i.initiateTag != 0, let cookie = i.stateCookie else { return }
        if t1Retransmits == 0 { rto.measure(now - t1SentAt) }
        adoptPeer(tag: i.initiateTag, initialTSN: i.initialTSN, window: i.advertisedReceiverWindowCredit,
                  outbound: i.outboundStreams, inbound: i.inboundStreams,
                  forwardTSN: i.supportsForwardTSN, reconfig: i.supportsReconfig, pad: i.supportsPad)
        state = .cookieEchoed
        let echo = SCTPChunk.cookieEcho(cookie: cookie[...])
        t1Chunk = echo
        t1Retransmits = 0
        t1SentAt = now
        t1Deadline = now + rto.rto
        outbox.append(packet(tag: peerTag, chunks: [echo]))
    }

    func handleCookieEcho(_ bytes: ArraySlice<UInt8>) {
        guard let c = StateCookie.decode(bytes, key: cookieKey), c.localTag == localTag else { return }
        let age = nowMilliseconds &- c.timestamp
        let lifetime = UInt64(max(0, config.cookieLifetime.components.seconds)) * 1000
        guard c.timestamp <= nowMilliseconds, age <= lifetime else {
            // Stale cookie (§3.3.10.3): the peer's T1 will retry with a new INIT.
            var cause: [UInt8] = []
            cause.appendU16(3)
            cause.appendU16(8)
            cause.appendU32(UInt32(truncatingIfNeeded: min(age * 1000, UInt64(UInt32.max))))
            outbox.append(packet(tag: c.peerTag, chunks: [.error(causes: cause[...])]))
            return
        }
        switch state {
        case .closed, .cookieWait, .cookieEchoed:
            adoptPeer(tag: c.peerTag, initialTSN: c.peerInitialTSN, window: c.peerReceiverWindow,
                      outbound: c.peerOutboundStreams, inbound: c.peerInboundStreams,
                      forwardTSN: c.peerSupportsForwardTSN, reconfig: c.peerSupportsReconfig, pad: c.peerSupportsPad)
            controlChunks.append(.cookieAck)
            establish()
        default:
            // Duplicate COOKIE ECHO for this association (§5.2.4 case D): ack again.
            if c.peerTag == peerTag { controlChunks.append(.cookieAck) }
        }
    }

    func handleCookieAck() {
        guard state == .cookieEchoed else { return }
        if t1Retransmits == 0 { rto.measure(now - t1SentAt) }
        establish()
    }

    func adoptPeer(tag: UInt32, initialTSN: UInt32, window: UInt32, outbound: UInt16, inbound: UInt16,
                   forwardTSN: Bool, reconfig: Bool, pad: Bool) {
        peerTag = tag
        tracker = ReceiveTracker(peerInitialTSN: initialTSN)
        peerNextRequestSequence = initialTSN
        peerReceiverWindow = Int(window)
        congestion = CongestionControl(mtu: packetSize, peerReceiverWindow: Int(window), algorithm: config.congestionControl,
                                       seed: congestion.bbr?.seed ?? 0)
        outboundStreamCount = min(config.outboundStreams, inbound)
        inboundStreamCount = min(config.inboundStreams, outbound)
        peerSupportsForwardTSN = forwardTSN
        peerSupportsReconfig = reconfig
        // Packets beyond an Ethernet frame only to a peer that declared PAD
        // (RFC 4820), as chatcli does: a probe proves one large packet gets
        // through, not that a slow stack (aiortc) keeps up with a stream of them.
        let maximum = pad ? config.maxProbePacketSize : min(config.maxProbePacketSize, PathMTUSearch.ethernetSize)
        pathMTU = PathMTUSearch(base: config.maxPacketSize, maximum: maximum)
    }

    func establish() {
        t1Deadline = nil
        t1Chunk = nil
        state = .established
        emit(.connected)
        sendPathMTUProbeIfDue()
        if closeRequested {
            state = .shutdownPending
            maybeStartShutdown()
        }
    }

    func handleError(_ causes: ArraySlice<UInt8>) {
        // A Stale Cookie error (cause 3) during the handshake: resend INIT now.
        if state == .cookieEchoed, causes.count >= 2, causes[causes.startIndex] == 0, causes[causes.startIndex + 1] == 3 {
            state = .cookieWait
            let initChunk = SCTPChunk.initiate(makeInit())
            t1Chunk = initChunk
            t1SentAt = now
            t1Deadline = now + rto.rto
            outbox.append(packet(tag: 0, chunks: [initChunk]))
        }
    }
}

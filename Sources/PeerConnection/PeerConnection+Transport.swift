import DTLS
import ICE
import SCTP
import STUN
import TURN

extension PeerConnection {
    /// A datagram that arrived on local address `to` from `from` (RFC 7983
    /// demultiplexing: STUN to ICE, DTLS to DTLS, anything else dropped).
    public func handleInput(_ datagram: [UInt8], from: STUNAddress, to: STUNAddress, now: Duration) {
        self.now = now
        guard let first = datagram.first else { return }
        if agent.isTURNServer(from, base: to) {
            agent.handleInput(datagram, from: from, to: to, now: now)
            deliverRelayed()
            return
        }
        switch Demux.classify(first) {
        case .stun:
            agent.handleInput(datagram, from: from, to: to, now: now)
            drainICE()
        case .dtls:
            handleDTLS(datagram)
        default:
            break
        }
        flush()
    }

    /// Bytes from the TCP stream to TURN server `server` (a `.turnStream`
    /// transmit's destination).
    public func handleTURNStream(_ bytes: [UInt8], from server: STUNAddress, now: Duration) {
        self.now = now
        agent.handleTURNStream(bytes, from: server, now: now)
        deliverRelayed()
    }

    /// The TCP stream to TURN server `server` failed to open or closed
    /// (`reason`, a sentence).
    public func turnStreamClosed(_ server: STUNAddress, reason: TURNFailure, now: Duration) {
        self.now = now
        agent.turnStreamClosed(server, reason: reason, now: now)
        drainICE()
        flush()
    }

    /// Hands what the peer sent through a relay (already unwrapped) to DTLS.
    private func deliverRelayed() {
        drainICE()
        while let received = agent.pollReceived() {
            if Demux.classify(datagram: received.bytes) == .dtls { handleDTLS(received.bytes) }
        }
        flush()
    }

    private func handleDTLS(_ datagram: [UInt8]) {
        if let dtls {
            dtls.handleInput(datagram: datagram, now: now)
            drainDTLS()
        } else if earlyDTLS.count < 16 {
            earlyDTLS.append(datagram)   // the peer's ClientHello can beat our ICE nomination
        }
    }

    public func handleTimeout(now: Duration) {
        self.now = now
        if let due = agent.pollTimeout(), due <= now { agent.handleTimeout(now: now) }
        drainICE()
        if let dtls, let due = dtls.pollTimeout(), due <= now {
            dtls.handleTimeout(now: now)
            drainDTLS()
        }
        if let sctp, let due = sctp.pollTimeout(), due <= now {
            sctp.handleTimeout(now: now)
        }
        flush()
    }

    /// The earliest time `handleTimeout` has work.
    public func pollTimeout() -> Duration? {
        var deadlines: [Duration] = []
        if let t = agent.pollTimeout() { deadlines.append(t) }
        if let t = dtls?.pollTimeout() { deadlines.append(t) }
        if let t = sctp?.pollTimeout() { deadlines.append(t) }
        return deadlines.min()
    }

    public func pollTransmit() -> ICETransmit? {
        if transmits.isEmpty { drainICE() }
        return transmits.popFirst()
    }

    public func pollEvent() -> PeerConnectionEvent? {
        events.popFirst()
    }

    // MARK: Plumbing

    func drainICE() {
        while let transmit = agent.pollTransmit() { transmits.append(transmit) }
        while let event = agent.pollEvent() {
            switch event {
            case .localCandidate(let candidate): events.append(.localCandidate(candidate.sdpAttribute))
            case .gatheringComplete: events.append(.endOfCandidates)
            case .selectedPairChanged(let pair):
                events.append(.iceConnected(pair))
                if dtls == nil {
                    do { try startDTLS() } catch { fail(error) }
                }
                pathRestored()
                flush()
            case .stateChanged(.disconnected):
                pathLost(.noAnswer(seconds: Int(config.ice.disconnectedTimeout.components.seconds)))
            case .stateChanged(.connected) where pathDown:
                pathRestored()
            case .stateChanged(.failed(let failure)): pathLost(.ice(failure))
            default: break
            }
        }
    }

    func drainDTLS() {
        guard let dtls else { return }
        while let event = dtls.pollEvent() {
            switch event {
            case .connected:
                startSCTP(maxPacketSize: dtls.maxPlaintextSize)
            case .data(let packet):
                sctp?.handleInput(packet: packet, now: now)
                drainSCTP()
            case .closed:
                finishClosed()
            case .failed(let error):
                fail(.dtls(error))
            }
        }
    }

    func startSCTP(maxPacketSize: Int) {
        guard sctp == nil, let dtlsRole else { return }
        var sctpConfig = SCTPConfig()
        sctpConfig.maxPacketSize = min(sctpConfig.maxPacketSize, maxPacketSize)
        sctpConfig.congestionControl = config.congestionControl
        if config.maxPacketSize > sctpConfig.maxPacketSize, let dtls {
            dtls.allowLargeRecords()
            sctpConfig.maxProbePacketSize = min(config.maxPacketSize, dtls.maxPlaintextSize)
        }
        let endpoint = DataChannelEndpoint(role: dtlsRole == .client ? .client : .server, config: sctpConfig, using: &random)
        sctp = endpoint
        endpoint.connect(now: now)
    }

    func drainSCTP() {
        guard let sctp else { return }
        while let event = sctp.pollEvent() {
            if handleControl(event) { continue }
            switch event {
            case .connected:
                if isOfferer, chatChannel == nil {
                    do { _ = try sctp.openChannel(label: config.channelLabel) } catch { fail(.cannotOpenChannel(label: config.channelLabel, error)) }
                    openControlChannel()
                }
            case .channelOpen(let id, let label):
                guard label == config.channelLabel, chatChannel == nil else {
                    if label != config.channelLabel { queueChannelEvent(event) }
                    continue
                }
                chatChannel = id
                // Chat lines go ahead of file data queued on other channels,
                // and twice, so a lost packet costs no round trip.
                sctp.association.setPriority(0, stream: id)
                sctp.association.setRedundant(true, stream: id)
                if let connection = currentConnectionInfo() {
                    info = connection
                    events.append(.connected(connection))
                }
            case .message(let id, let message):
                guard id == chatChannel else {
                    queueChannelEvent(event)
                    continue
                }
                guard case .text(let text) = message else { continue }   // binary is ignorable
                counters.countReceived(text)
                events.append(.message(text))
            case .messageTooLarge(let id):
                if id == chatChannel { events.append(.messageTooLarge) } else { queueChannelEvent(event) }
            case .channelClosed(let id):
                if id == chatChannel { finishClosed() } else { queueChannelEvent(event) }
            case .closed:
                queueChannelEvent(event)
                finishClosed()
            }
        }
    }

    /// Moves SCTP packets through DTLS and DTLS datagrams onto the ICE pair.
    func flush() {
        if let sctp, let dtls, dtls.state == .connected {
            drainSCTP()
            while let packet = sctp.pollTransmit(now: now) {
                do { try dtls.send(packet) } catch { fail(.cannotEncrypt(error)); break }
            }
            drainSCTP()
        }
        if let dtls {
            drainDTLS()
            while let datagram = dtls.pollTransmit() {
                agent.send(datagram)
            }
        }
        drainICE()
    }

    func currentConnectionInfo() -> ConnectionInfo? {
        guard let pair = agent.selectedPair, let remoteFingerprint else { return nil }
        return ConnectionInfo(path: pair.path, local: pair.local.summary, remote: pair.remote.summary,
                              sas: SAS.words(localFingerprint: certificate.fingerprint, remoteFingerprint: remoteFingerprint),
                              rttMilliseconds: pair.rttMilliseconds)
    }

    func finishClosed() {
        guard !events.contains(.closed) else { return }
        chatChannel = nil
        finished = true
        events.append(.closed)
    }

    func fail(_ error: PeerConnectionError) {
        if events.contains(where: { if case .failed = $0 { return true } else { return false } }) { return }
        finished = true
        events.append(.failed(error))
    }
}

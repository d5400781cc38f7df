/// WebRTC data channels (RFC 8831) with DCEP (RFC 8832) over one
/// ``SCTPAssociation``.
///
/// Same sans-IO shape as the association: ``handleInput(packet:now:)``,
/// ``pollTransmit(now:)``, ``pollEvent()``, ``pollTimeout()``,
/// ``handleTimeout(now:)``. Association events are turned into channel
/// events as soon as they occur, so DCEP answers (ACK, the reset of our half
/// of a closing channel) are ready for the next `pollTransmit`.
public final class DataChannelEndpoint {
    public let association: SCTPAssociation
    public let role: DTLSRole
    var channels: [UInt16: DataChannel] = [:]
    var events: [DataChannelEvent] = []
    var eventHead = 0

    public init(role: DTLSRole, config: SCTPConfig = SCTPConfig(), using rng: inout some RandomNumberGenerator) {
        self.role = role
        association = SCTPAssociation(config: config, using: &rng)
    }

    // MARK: Driving

    /// Sends INIT. Both peers may call it (WebRTC does): INITs that cross converge.
    public func connect(now: Duration) { association.connect(now: now) }

    public func handleInput(packet: [UInt8], now: Duration) {
        association.handleInput(packet: packet, now: now)
        processAssociationEvents()
    }

    public func pollTransmit(now: Duration) -> [UInt8]? { association.pollTransmit(now: now) }
    public func pollTimeout() -> Duration? { association.pollTimeout() }

    public func handleTimeout(now: Duration) {
        association.handleTimeout(now: now)
        processAssociationEvents()
    }

    /// See ``SCTPAssociation/pathRestored(now:)``.
    public func pathRestored(now: Duration) { association.pathRestored(now: now) }

    public func pollEvent() -> DataChannelEvent? {
        processAssociationEvents()
        guard eventHead < events.count else { return nil }
        let e = events[eventHead]
        eventHead += 1
        if eventHead == events.count {
            events.removeAll(keepingCapacity: true)
            eventHead = 0
        }
        return e
    }

    // MARK: State

    public var isConnected: Bool { association.isEstablished }
    /// True when the peer's cumulative ack covers everything we ever sent.
    public var isFullyAcknowledged: Bool { association.isFullyAcknowledged }
    public var unacknowledgedBytes: Int { association.unacknowledgedBytes }
    /// Messages sent on channel `id` that the peer's SCTP has acknowledged, in order.
    public func acknowledgedMessages(on id: UInt16) -> Int { association.acknowledgedMessages[id] ?? 0 }
    /// Bytes queued and not yet transmitted (WebRTC's `bufferedAmount`).
    public var bufferedAmount: Int { association.bufferedAmount }
    public func channel(_ id: UInt16) -> DataChannelInfo? { channels[id]?.info }
    public var openChannels: [DataChannelInfo] { channels.values.map(\.info).filter(\.isOpen).sorted { $0.id < $1.id } }

    // MARK: Channels

    /// Opens a reliable channel and reports `.channelOpen` once the OPEN is
    /// queued; messages may be sent from then on, even during the handshake.
    public func openChannel(label: String, ordered: Bool = true, protocolName: String = "") throws(SCTPError) -> UInt16 {
        guard !association.isClosed else { throw .notConnected }
        let limit = association.isEstablished ? association.negotiatedOutboundStreams : association.config.outboundStreams
        var id: UInt16 = role == .client ? 0 : 1
        while channels[id] != nil {
            guard id < limit &- 2 else { throw .noFreeStream }
            id += 2
        }
        guard id < limit else { throw .noFreeStream }
        channels[id] = DataChannel(id: id, label: label, protocolName: protocolName, ordered: ordered, awaitingAck: true, openPending: true)
        // Once INIT went out the OPEN can be queued behind the handshake; a
        // purely passive endpoint sends it when the association comes up.
        if association.state != .closed { try sendOpen(id) }
        return id
    }

    public func send(text: String, on id: UInt16) throws(SCTPError) {
        if text.isEmpty {
            try send(ppid: DataChannelPPID.stringEmpty, bytes: [0], on: id)
        } else {
            try send(ppid: DataChannelPPID.string, bytes: Array(text.utf8), on: id)
        }
    }

    public func send(binary: [UInt8], on id: UInt16) throws(SCTPError) {
        if binary.isEmpty {
            try send(ppid: DataChannelPPID.binaryEmpty, bytes: [0], on: id)
        } else {
            try send(ppid: DataChannelPPID.binary, bytes: binary, on: id)
        }
    }

    func send(ppid: UInt32, bytes: [UInt8], on id: UInt16) throws(SCTPError) {
        guard let c = channels[id] else { throw .unknownChannel }
        guard !c.closing, !c.closedReported, !c.openPending else { throw .channelClosed }
        // RFC 8832 §6: ordered until the peer acknowledged the OPEN.
        try association.send(stream: id, ppid: ppid, bytes: bytes, ordered: c.ordered || c.awaitingAck)
    }

    /// Closes a channel by resetting our outgoing stream (RFC 8831 §6.7).
    public func closeChannel(_ id: UInt16) {
        guard var c = channels[id], !c.closing else { return }
        c.closing = true
        channels[id] = c
        if c.openPending {
            channels[id] = nil
            events.append(.channelClosed(id: id))
            return
        }
        try? association.resetStreams([id])
    }

    /// Graceful close of the whole association (SHUTDOWN).
    public func close() { association.close(); processAssociationEvents() }
    /// The association ended (SHUTDOWN finished, ABORT, or a timeout).
    public var isClosed: Bool { association.isClosed }
    public func abort() { association.abort(); processAssociationEvents() }

    // MARK: Internals

    func sendOpen(_ id: UInt16) throws(SCTPError) {
        guard var c = channels[id] else { return }
        let open = DataChannelOpen(channelType: c.ordered ? 0x00 : 0x80, label: c.label, protocolName: c.protocolName)
        try association.send(stream: id, ppid: DataChannelPPID.dcep, bytes: DCEPMessage.open(open).encode(), ordered: true)
        c.openPending = false
        channels[id] = c
        events.append(.channelOpen(id: id, label: c.label))
    }

    func processAssociationEvents() {
        while let e = association.pollEvent() {
            switch e {
            case .connected:
                events.append(.connected)
                for id in channels.keys.sorted() where channels[id]?.openPending == true { try? sendOpen(id) }
            case .message(let stream, let ppid, let bytes):
                handleMessage(stream: stream, ppid: ppid, bytes: bytes)
            case .messageTooLarge(let stream):
                if let c = channels[stream], !c.closedReported { events.append(.messageTooLarge(channelID: stream)) }
            case .streamReset(let ids):
                for id in ids.isEmpty ? Array(channels.keys) : ids { handleIncomingReset(id) }
            case .outgoingStreamReset(let ids):
                for id in ids {
                    guard var c = channels[id] else { continue }
                    c.outgoingReset = true
                    channels[id] = c
                    finishClose(id)
                }
            case .peerShutDown:
                // Browsers close every channel when the peer shuts down.
                reportChannelsClosed()
            case .closed(let reason):
                reportChannelsClosed()
                channels.removeAll()
                events.append(.closed(reason))
            }
        }
    }

    private func reportChannelsClosed() {
        for id in channels.keys.sorted() where channels[id]?.closedReported == false && channels[id]?.openPending == false {
            channels[id]?.closedReported = true
            events.append(.channelClosed(id: id))
        }
    }

    func handleMessage(stream: UInt16, ppid: UInt32, bytes: [UInt8]) {
        switch ppid {
        case DataChannelPPID.dcep:
            switch DCEPMessage.decode(bytes) {
            case .open(let o):
                // An OPEN for a stream in use is a protocol error; ignore it.
                guard channels[stream] == nil else { return }
                channels[stream] = DataChannel(id: stream, label: o.label, protocolName: o.protocolName, ordered: o.ordered,
                                               awaitingAck: false, openPending: false)
                try? association.send(stream: stream, ppid: DataChannelPPID.dcep, bytes: DCEPMessage.ack.encode(), ordered: true)
                events.append(.channelOpen(id: stream, label: o.label))
            case .ack:
                channels[stream]?.awaitingAck = false
            case nil:
                return
            }
        default:
            guard let c = channels[stream], !c.closedReported else { return }
            // Any data from the peer implies it saw our OPEN (RFC 8832 §6).
            channels[stream]?.awaitingAck = false
            switch ppid {
            case DataChannelPPID.string, DataChannelPPID.stringPartial:
                events.append(.message(channelID: stream, .text(String(decoding: bytes, as: UTF8.self))))
            case DataChannelPPID.binary, DataChannelPPID.binaryPartial:
                events.append(.message(channelID: stream, .binary(bytes)))
            case DataChannelPPID.stringEmpty:
                events.append(.message(channelID: stream, .text("")))
            case DataChannelPPID.binaryEmpty:
                events.append(.message(channelID: stream, .binary([])))
            default:
                return
            }
        }
    }

    /// The peer reset its outgoing stream: reset ours too, then the channel is closed.
    func handleIncomingReset(_ id: UInt16) {
        guard var c = channels[id] else { return }
        c.incomingReset = true
        if !c.closing {
            c.closing = true
            try? association.resetStreams([id])
        }
        channels[id] = c
        finishClose(id)
    }

    /// Reports the close once either direction is reset and frees the id
    /// once both are.
    func finishClose(_ id: UInt16) {
        guard var c = channels[id] else { return }
        if !c.closedReported {
            c.closedReported = true
            events.append(.channelClosed(id: id))
        }
        channels[id] = (c.incomingReset && c.outgoingReset) ? nil : c
    }
}

import Wire
/// An SCTP association for WebRTC data channels (RFC 9260 subset over DTLS,
/// RFC 8261), with PR-SCTP FORWARD TSN receipt (RFC 3758) and stream reset
/// (RFC 6525).
///
/// Sans-IO: feed every decrypted DTLS record to ``handleInput(packet:now:)``,
/// send what ``pollTransmit(now:)`` returns until it returns nil, read
/// ``pollEvent()`` until nil, and call ``handleTimeout(now:)`` at
/// ``pollTimeout()``. `now` is any monotonic clock; randomness (verification
/// tag, initial TSN, cookie key) is drawn once from the generator given to
/// `init`.
///
/// Both WebRTC peers may call ``connect(now:)``: simultaneous INITs converge
/// (RFC 9260 §5.2.1). A peer that never calls it still answers an INIT.
public final class SCTPAssociation {
    enum State: Equatable {
        case closed, cookieWait, cookieEchoed, established
        case shutdownPending, shutdownSent, shutdownReceived, shutdownAckSent
    }

    public let config: SCTPConfig
    public internal(set) var statistics = SCTPStatistics()
    var state: State = .closed
    /// Set once `.closed` was reported; nothing happens afterwards.
    var terminated = false
    /// Why it ended, once `terminated`.
    var closeReason: SCTPCloseReason?
    /// `close()` was called during the handshake.
    var closeRequested = false
    var now: Duration = .zero

    // Identity, fixed at creation.
    let localTag: UInt32
    let initialTSN: UInt32
    let cookieKey: SipHashKey

    // Learned from the peer's INIT / INIT ACK / COOKIE ECHO.
    var peerTag: UInt32 = 0
    var peerSupportsForwardTSN = false
    var peerSupportsReconfig = false
    var outboundStreamCount: UInt16
    var inboundStreamCount: UInt16
    var peerReceiverWindow: Int = 0

    // Output.
    /// Whole packets with a special verification tag (INIT, INIT ACK, ABORT…).
    var outbox = Deque<[UInt8]>()
    /// Control chunks bundled at the front of the next packet to the peer.
    var controlChunks = Deque<SCTPChunk>()
    var events: [SCTPEvent] = []
    var eventHead = 0
    /// Message bytes sitting in `events`, still counted against our window.
    var eventBytes = 0
    /// Message bytes the application polled and still holds (`hold`).
    var heldBytes = 0

    // Handshake (T1).
    var t1Deadline: Duration?
    var t1Retransmits = 0
    var t1Chunk: SCTPChunk?
    var t1SentAt: Duration = .zero
    var cookieEchoSent = false

    // Receiver side.
    var tracker = ReceiveTracker(peerInitialTSN: 0)
    var reassembly: ReassemblyQueue
    var sackNeeded = false
    var sackImmediately = false
    var dataPacketsSinceSack = 0
    var ackDeadline: Duration?
    var lastAdvertisedWindow = 0

    // Sender side.
    var sendQueue = SendQueue()
    var retransmissionQueue: RetransmissionQueue
    var retransmitList: [UInt32] = []
    var retransmitListUnsorted = false
    /// The next retransmission packet may ignore cwnd (RFC 9260 §7.2.4 step 3).
    var fastRetransmitBypass = false
    var flightSize = 0
    var congestion: CongestionControl
    var deliveryRate = DeliveryRateEstimator()
    var pacer = Pacer()
    var pathMTU: PathMTUSearch
    var rto: RTOEstimator
    var t3Deadline: Duration?
    var errorCount = 0
    var outgoingSSN: [UInt16: UInt16] = [:]
    /// RFC 8260 priorities of outgoing streams; unlisted ones have
    /// `defaultStreamPriority`.
    var streamPriorities: [UInt16: UInt16] = [:]
    /// Streams whose small messages go out twice (`setRedundant`).
    var redundantStreams: Set<UInt16> = []
    /// Second copies of such messages' chunks, due in order.
    var redundantCopies: [(tsn: UInt32, due: Duration)] = []
    /// User messages (DCEP excluded) per stream whose every fragment the
    /// peer's cumulative ack covers: what the peer's SCTP has surely received.
    public internal(set) var acknowledgedMessages: [UInt16: Int] = [:]

    // Shutdown (T2).
    var t2Deadline: Duration?
    var t2Retransmits = 0

    // Stream reset (RFC 6525).
    var pendingResets: [UInt16] = []
    var reconfigRequest: (sequence: UInt32, streams: [UInt16], lastTSN: UInt32)?
    var reconfigDeadline: Duration?
    var nextRequestSequence: UInt32
    var peerNextRequestSequence: UInt32 = 0
    var lastResponse: (sequence: UInt32, result: UInt32)?
    var deferredReset: (sequence: UInt32, lastTSN: UInt32, streams: [UInt16])?

    public init(config: SCTPConfig = SCTPConfig(), using rng: inout some RandomNumberGenerator) {
        self.config = config
        var tag: UInt32 = 0
        while tag == 0 { tag = rng.next() }
        localTag = tag
        initialTSN = rng.next()
        cookieKey = SipHashKey(k0: rng.next(), k1: rng.next())
        let congestionSeed: UInt64 = rng.next()
        outboundStreamCount = config.outboundStreams
        inboundStreamCount = config.inboundStreams
        reassembly = ReassemblyQueue(maxMessageSize: config.maxMessageSize)
        retransmissionQueue = RetransmissionQueue(initialTSN: initialTSN)
        congestion = CongestionControl(mtu: config.maxPacketSize, peerReceiverWindow: config.receiveBufferSize,
                                       algorithm: config.congestionControl, seed: congestionSeed)
        pathMTU = PathMTUSearch(base: config.maxPacketSize, maximum: config.maxProbePacketSize)
        rto = RTOEstimator(initial: config.rtoInitial, minimum: config.rtoMin, maximum: config.rtoMax)
        nextRequestSequence = initialTSN
        lastAdvertisedWindow = config.receiveBufferSize
    }

    // MARK: Public state

    public var isEstablished: Bool { state == .established }
    public var isClosed: Bool { terminated }
    /// Current retransmission timeout (for diagnostics and tests).
    public var currentRTO: Duration { rto.rto }
    public var smoothedRTT: Duration? { rto.srtt }
    public var congestionWindow: Int { congestion.window }
    /// Bytes per second the sender paces at; nil without pacing (CUBIC).
    public var pacingRate: Double? { congestion.pacingRate }
    /// Bytes accepted by `send` but not yet transmitted once.
    public var bufferedAmount: Int { sendQueue.bufferedBytes }
    /// Bytes accepted by `send` and not yet covered by the peer's cumulative ack.
    public var unacknowledgedBytes: Int { sendQueue.bufferedBytes + retransmissionQueue.outstandingBytes }
    /// True when everything ever sent is covered by the peer's cumulative ack.
    public var isFullyAcknowledged: Bool { sendQueue.isEmpty && retransmissionQueue.isEmpty }
    /// Number of outbound streams both sides agreed on.
    public var negotiatedOutboundStreams: UInt16 { outboundStreamCount }
    public var negotiatedInboundStreams: UInt16 { inboundStreamCount }

    // MARK: Events

    public func pollEvent() -> SCTPEvent? {
        guard eventHead < events.count else { return nil }
        let e = events[eventHead]
        eventHead += 1
        if eventHead == events.count {
            events.removeAll(keepingCapacity: true)
            eventHead = 0
        }
        if case .message(_, _, let bytes) = e {
            eventBytes -= bytes.count
            windowMayHaveReopened()
        }
        return e
    }

    /// Reopens the window promptly once the application drained a lot.
    func windowMayHaveReopened() {
        if state == .established, receiverWindow >= lastAdvertisedWindow + max(config.receiveBufferSize / 4, config.maxPacketSize) {
            sackNeeded = true
            sackImmediately = true
        }
    }

    /// Message bytes the application polled but keeps unconsumed (a file
    /// transfer's data waiting for a slow disk): they count against our
    /// window until `release`, so the peer stops sending rather than the
    /// application buffering without bound.
    public func hold(bytes: Int) { heldBytes += bytes }

    public func release(bytes: Int) {
        heldBytes = max(0, heldBytes - bytes)
        windowMayHaveReopened()
    }

    func emit(_ e: SCTPEvent) {
        if case .message(_, _, let bytes) = e { eventBytes += bytes.count }
        events.append(e)
    }

    /// Our a_rwnd: buffer space left after undelivered and unread data.
    var receiverWindow: Int { max(0, config.receiveBufferSize - reassembly.bufferedBytes - unreadBytes) }
    /// Delivered message bytes the application has not consumed yet.
    var unreadBytes: Int { eventBytes + heldBytes }

    // MARK: Application actions

    /// Starts the handshake by sending INIT.
    public func connect(now: Duration) {
        self.now = now
        guard state == .closed, !terminated else { return }
        let initChunk = SCTPChunk.initiate(makeInit())
        state = .cookieWait
        t1Chunk = initChunk
        t1Retransmits = 0
        t1SentAt = now
        t1Deadline = now + rto.rto
        outbox.append(packet(tag: 0, chunks: [initChunk]))
    }

    /// Queues one user message. Ordered messages get the stream's next SSN.
    public func send(stream: UInt16, ppid: UInt32, bytes: [UInt8], ordered: Bool = true) throws(SCTPError) {
        guard !terminated else { throw .notConnected }
        switch state {
        case .established, .cookieWait, .cookieEchoed: break
        case .closed: throw .notConnected
        default: throw .closing
        }
        guard !bytes.isEmpty else { throw .emptyMessage }
        guard bytes.count <= config.maxMessageSize else { throw .messageTooLarge }
        if state == .established, stream >= outboundStreamCount { throw .invalidStream }
        var ssn: UInt16 = 0
        if ordered {
            ssn = outgoingSSN[stream] ?? 0
            outgoingSSN[stream] = ssn &+ 1
        }
        sendQueue.append(PendingMessage(streamID: stream, ppid: ppid, unordered: !ordered, streamSequence: ssn, bytes: bytes),
                         priority: streamPriorities[stream] ?? Self.defaultStreamPriority)
    }

    /// Priority of streams nobody set one for.
    public static let defaultStreamPriority: UInt16 = 256

    /// Messages queued on `stream` from now on go out before those of
    /// streams with a higher `priority` value (RFC 8260 §3.4), once the
    /// message being fragmented is finished: a chat stream below the
    /// default keeps lines ahead of bulk data.
    public func setPriority(_ priority: UInt16, stream: UInt16) {
        streamPriorities[stream] = priority
    }

    /// Graceful close: SHUTDOWN once everything queued was acknowledged.
    public func close() {
        guard !terminated else { return }
        switch state {
        case .established:
            state = .shutdownPending
            maybeStartShutdown()
        case .cookieWait, .cookieEchoed:
            // Let queued data go out first: shut down once established.
            closeRequested = true
        case .closed:
            terminate(.shutdown, sendAbort: false)
        default: break
        }
    }

    /// Immediate close with ABORT.
    public func abort() {
        guard !terminated else { return }
        terminate(.abortedLocally, sendAbort: state != .closed)
    }

    func terminate(_ reason: SCTPCloseReason, sendAbort: Bool) {
        if sendAbort {
            if peerTag != 0 {
                outbox.append(packet(tag: peerTag, chunks: [.abort(reflectedTag: false, causes: [])]))
            } else {
                // Peer tag unknown: reflect our own (T bit, RFC 9260 §8.4).
                outbox.append(packet(tag: localTag, chunks: [.abort(reflectedTag: true, causes: [])]))
            }
        }
        state = .closed
        terminated = true
        closeReason = reason
        t1Deadline = nil
        t2Deadline = nil
        t3Deadline = nil
        ackDeadline = nil
        reconfigDeadline = nil
        redundantCopies.removeAll()
        controlChunks.removeAll()
        emit(.closed(reason))
    }

    // MARK: Helpers

    func makeInit() -> InitChunk {
        InitChunk(initiateTag: localTag, advertisedReceiverWindowCredit: UInt32(receiverWindow),
                  outboundStreams: config.outboundStreams, inboundStreams: config.inboundStreams,
                  initialTSN: initialTSN,
                  parameters: [.forwardTSNSupported, .supportedExtensions([ChunkType.reconfig, ChunkType.forwardTSN, ChunkType.pad])])
    }

    func packet(tag: UInt32, chunks: [SCTPChunk]) -> [UInt8] {
        SCTPPacket(sourcePort: config.localPort, destinationPort: config.remotePort, verificationTag: tag, chunks: chunks).encode()
    }

    var nowMilliseconds: UInt64 {
        let c = now.components
        return UInt64(max(0, c.seconds)) &* 1000 &+ UInt64(max(0, c.attoseconds) / 1_000_000_000_000_000)
    }
}

import STUN
import Wire

/// A TURN client (RFC 8656) holding one UDP relay allocation on one
/// server, over UDP or TCP, sans-IO.
///
/// The TURN module lets a peer behind a restrictive NAT be reached through
/// a relay: the client allocates a relayed transport address on the server
/// (answering the long-term credential challenge), keeps it alive with
/// Refresh, installs permissions for peers, binds channels, and wraps
/// application data in Send indications or ChannelData messages.
///
/// The owner opens the socket (or TCP connection) to `server` and:
/// - passes everything received from the server to `handleInput` (UDP:
///   one datagram per call; TCP: stream bytes in any chunks);
/// - calls `handleTimeout(now:)` when `pollTimeout()` is due;
/// - after every call drains `pollTransmit()` (bytes for the server) and
///   `pollEvent()`.
///
/// For ICE, `.allocated` gives the relayed candidate's address (and the
/// server-reflexive one); `send(_:to:)` and `.data(from:_:)` carry traffic
/// to and from peers through the relay. Time is a `Duration` since any
/// origin the owner picks; transaction ids come from the injected generator.
public final class TURNClient {
    public let server: STUNAddress
    public let transport: TURNTransport
    /// LIFETIME asked for in each Refresh (the server may grant less).
    public var requestedLifetime: UInt32 = Allocation.defaultLifetime

    var auth: TURNAuth
    var allocation = Allocation()
    var permissions = PermissionTable()
    var channels = ChannelTable()
    var stun: STUNClient
    var outstanding: [STUNTransactionID: Outstanding] = [:]
    var random: any RandomNumberGenerator
    var now: Duration
    var framer = TURNStreamFramer()

    private var transmits = Deque<[UInt8]>()
    private var events = Deque<TURNEvent>()

    /// Creates the client and queues the first Allocate request.
    public init(
        server: STUNAddress, transport: TURNTransport, username: String, password: String,
        now: Duration, random: any RandomNumberGenerator = SystemRandomNumberGenerator()
    ) {
        self.server = server
        self.transport = transport
        self.auth = TURNAuth(username: username, password: password)
        self.stun = STUNClient(policy: transport == .udp ? .unreliable : .reliable)
        self.random = random
        self.now = now
        start(.allocate)
    }

    // MARK: - State for the owner

    /// The relayed transport address, once allocated.
    public var relayedAddress: STUNAddress? { allocation.state == .allocated ? allocation.relayed : nil }
    /// Our address as the server saw it (XOR-MAPPED-ADDRESS), once allocated.
    public var mappedAddress: STUNAddress? { allocation.mapped }
    public var isAllocated: Bool { allocation.state == .allocated }
    /// True after `.failed` or `.deallocated`: the client is done.
    public var isClosed: Bool { allocation.state == .closed }

    // MARK: - Commands

    /// Sends application data to `peer` through the relay: as ChannelData
    /// when a channel is bound, else as a Send indication. Without a
    /// permission for the peer's IP, one is requested and the data waits
    /// for it. Returns false when the data was dropped (no allocation, or
    /// too much already waiting). `now` dates the CreatePermission it may
    /// start (a command can come long after the last input).
    @discardableResult
    public func send(_ bytes: [UInt8], to peer: STUNAddress, now: Duration) -> Bool {
        self.now = now
        guard allocation.isActive else { return false }
        if channels.boundNumber(for: peer) != nil || permissions.isInstalled(peer) {
            transmitData(bytes, to: peer)
            return true
        }
        requestPermission(peer)
        return permissions.enqueue(bytes, to: peer)
    }

    /// Installs a permission for `peer`'s IP without sending data (ICE does
    /// this for each remote candidate before its checks).
    public func createPermission(for peer: STUNAddress, now: Duration) {
        self.now = now
        guard allocation.isActive else { return }
        requestPermission(peer)
    }

    /// Binds a channel to `peer` (which also installs its permission) so
    /// later sends use ChannelData. Returns the channel number, or `nil`
    /// without an allocation or when all 4096 numbers are used.
    @discardableResult
    public func bindChannel(to peer: STUNAddress, now: Duration) -> UInt16? {
        self.now = now
        guard allocation.isActive, let (number, send) = channels.want(peer) else { return nil }
        if send && allocation.state == .allocated {
            channels.markRequested(peer)
            start(.channelBind(peer: peer, number: number))
        }
        return number
    }

    /// Refreshes the allocation now rather than when due, to learn whether
    /// it still exists (`.refreshed`, or `.failed` when the server no
    /// longer has it: 437). Does nothing while a Refresh is in flight.
    public func refresh(now: Duration) {
        self.now = now
        guard allocation.state == .allocated, allocation.refreshAt != nil else { return }
        allocation.refreshAt = nil
        start(.refresh(lifetime: max(1, requestedLifetime)))
        collectTransmits()
    }

    /// Deletes the allocation (Refresh with LIFETIME 0, §7.2); `.deallocated`
    /// follows. Requests still in flight are abandoned.
    public func deallocate(now: Duration) {
        self.now = now
        switch allocation.state {
        case .allocated:
            cancelAllRequests()
            allocation.state = .deallocating
            allocation.refreshAt = nil
            permissions.removeAll()
            channels.removeAll()
            start(.refresh(lifetime: 0))
        case .allocating:
            // No relayed address is known yet: nothing to delete by name. If
            // the server did allocate, the allocation expires on its own.
            close(with: .deallocated)
        case .deallocating, .closed:
            break
        }
    }

    /// The TCP connection to the server closed or could not be opened (or
    /// the UDP socket failed): the allocation is gone with it (§5: it
    /// belongs to the 5-tuple). `reason`: why, in a sentence.
    public func handleTransportClosed(now: Duration, reason: TURNFailure = .transportClosed(detail: nil)) {
        self.now = now
        switch allocation.state {
        case .deallocating: close(with: .deallocated)
        case .allocating, .allocated: close(with: .failed(reason))
        case .closed: break
        }
    }

    // MARK: - Sans-IO plumbing

    /// Bytes from the server: a datagram over UDP, any chunk of the stream
    /// over TCP. Malformed input is dropped (UDP) or ends the allocation
    /// (TCP, where the stream cannot resynchronise).
    public func handleInput(_ bytes: [UInt8], now: Duration) {
        self.now = now
        guard allocation.state != .closed else { return }
        switch transport {
        case .udp:
            handleFrame(bytes)
        case .tcp:
            framer.append(bytes)
            while allocation.state != .closed, let frame = framer.next() {
                switch frame {
                case .stun(let message), .channelData(let message): handleFrame(message)
                }
            }
            if framer.isCorrupt && allocation.state != .closed {
                close(with: .failed(.garbage))
            }
        }
        collectTransmits()
    }

    public func handleTimeout(now: Duration) {
        self.now = now
        stun.handleTimeout(now: now)
        drainSTUNEvents()
        if allocation.state == .allocated {
            if let at = allocation.refreshAt, at <= now {
                // Never LIFETIME 0 there: that would delete the allocation (§7.2).
                refresh(now: now)
            }
            for peer in permissions.due(now: now) {
                permissions.markRequested(peer)
                start(.createPermission(peer: peer))
            }
            for (peer, number) in channels.due(now: now) {
                channels.markRequested(peer)
                start(.channelBind(peer: peer, number: number))
            }
        }
        collectTransmits()
    }

    /// When `handleTimeout(now:)` must next be called.
    public func pollTimeout() -> Duration? {
        guard allocation.state != .closed else { return nil }
        var deadlines = [stun.pollTimeout()]
        if allocation.state == .allocated {
            deadlines += [allocation.refreshAt, permissions.nextDeadline, channels.nextDeadline]
        }
        return deadlines.compactMap { $0 }.min()
    }

    /// The next bytes to send to the server.
    public func pollTransmit() -> [UInt8]? {
        collectTransmits()
        return transmits.popFirst()
    }

    public func pollEvent() -> TURNEvent? {
        events.popFirst()
    }

    // MARK: - Internals shared with the extensions

    func emit(_ event: TURNEvent) {
        events.append(event)
    }

    /// Queues bytes for the server after any STUN transmits already due,
    /// so the server sees them in the order they were produced.
    func enqueueTransmit(_ bytes: [UInt8]) {
        collectTransmits()
        transmits.append(bytes)
    }

    func collectTransmits() {
        while let transmit = stun.pollTransmit() { transmits.append(transmit.bytes) }
    }

    /// Ends the client with a final event; nothing is sent after this.
    func close(with event: TURNEvent) {
        guard allocation.state != .closed else { return }
        cancelAllRequests()
        allocation.state = .closed
        allocation.refreshAt = nil
        permissions.removeAll()
        channels.removeAll()
        emit(event)
    }

    func cancelAllRequests() {
        for id in outstanding.keys { stun.cancel(id) }
        outstanding = [:]
    }
}

import STUN
import TURN
import Wire

/// A TURN server and the long-term credentials to allocate on it with.
public struct ICETURNServer: Hashable, Sendable {
    public var address: STUNAddress
    public var transport: TURNTransport
    public var username: String
    public var password: String
    /// `turns:`: the runtime wraps the TCP stream in TLS and checks the
    /// server's certificate for this name (ICE itself sees a TCP relay).
    public var tlsServerName: String?

    public init(address: STUNAddress, transport: TURNTransport, username: String, password: String, tlsServerName: String? = nil) {
        self.address = address
        self.transport = transport
        self.username = username
        self.password = password
        self.tlsServerName = tlsServerName
    }
}

/// One TURN server the agent gathers a relayed candidate on (RFC 8445
/// §5.1.1.2, RFC 8656): the sans-IO TURN client and what it produced.
struct Relay {
    let server: STUNAddress
    let transport: TURNTransport
    /// UDP: the host base the allocation is made from (its 5-tuple owns
    /// the allocation); `nil` while no base of the server's family exists.
    /// TCP: `nil`, the runtime's stream carries it.
    var hostBase: STUNAddress?
    let username: String
    let password: String
    var client: TURNClient
    /// When the current allocation was asked for (or verified, on restart).
    var startedAt: Duration
    /// Distinct per relay: UDP relays rank above TCP ones.
    let localPreference: UInt16
    /// The relayed transport address: the base of the relay candidate.
    var relayed: STUNAddress?
    /// Our address as the server saw it: the candidate's related address.
    var mapped: STUNAddress?
    /// Gathering is done with this relay: allocated, failed or timed out.
    var finished = false
    /// Why no relayed candidate came from this server, for the failure reason.
    var failure: RelayFailure?
    /// An allocation existed on this server once: losing it is worth a new one.
    var everAllocated = false
    /// When a lost allocation was last replaced (new ones at most every 5 s).
    var reallocatedAt: Duration?

    /// How transmits to this server travel.
    var route: ICETransmit.Route { transport == .tcp ? .turnStream : .datagram }
}

extension ICEAgent {
    /// Gathers a relayed candidate on a TURN server with long-term
    /// credentials. Over UDP the allocation is made from the first host base
    /// of the server's address family; over TCP on the stream the runtime
    /// opens to `server` when it sees the first `.turnStream` transmit. The
    /// Allocate is queued at once (drain `pollTransmit`). Adding a server
    /// twice does nothing.
    public func addTURNServer(_ server: STUNAddress, transport: TURNTransport, username: String, password: String) {
        guard !relays.contains(where: { $0.server == server && $0.transport == transport }) else { return }
        let hostBase = routableHostBases.first { $0.family == server.family }
        let client = TURNClient(
            server: server, transport: transport, username: username, password: password, now: now, random: random)
        let index = min(relays.count, 0x3FFF)
        var relay = Relay(
            server: server, transport: transport, hostBase: transport == .udp ? hostBase : nil,
            username: username, password: password, client: client,
            startedAt: now, localPreference: UInt16((transport == .udp ? 2 : 1) * 0x4000 + (0x3FFF - index)))
        if transport == .udp && hostBase == nil {
            relay.finished = true
            relay.failure = .noLocalAddress(server: server)
            relay.client.deallocate(now: now)
        }
        relays.append(relay)
        gatheringCompleteSent = false
        collectRelayTransmits(relays.count - 1)
    }

    /// Whether a datagram from `source` on `base` is from one of our TURN
    /// servers over UDP: the runtime passes those to `handleInput` whatever
    /// their first byte (ChannelData starts with 0x40…0x4F).
    public func isTURNServer(_ source: STUNAddress, base: STUNAddress) -> Bool {
        relayIndex(server: source, base: base) != nil
    }

    /// Bytes that arrived on the TCP stream to TURN server `server`.
    public func handleTURNStream(_ bytes: [UInt8], from server: STUNAddress, now: Duration) {
        advance(to: now)
        guard let index = relays.firstIndex(where: { $0.server == server && $0.transport == .tcp }) else { return }
        relays[index].client.handleInput(bytes, now: now)
        drainRelay(index)
        runTimers()
    }

    /// The TCP stream to `server` could not be opened or closed (`reason`,
    /// a sentence): its allocation is gone (RFC 8656 §5).
    public func turnStreamClosed(_ server: STUNAddress, reason: TURNFailure, now: Duration) {
        advance(to: now)
        guard let index = relays.firstIndex(where: { $0.server == server && $0.transport == .tcp }) else { return }
        relays[index].client.handleTransportClosed(now: now, reason: reason)
        drainRelay(index)
        runTimers()
    }

    /// Application data unwrapped from relayed traffic, in arrival order.
    public func pollReceived() -> ICEReceived? {
        received.popFirst()
    }

    /// Deletes every allocation (Refresh with LIFETIME 0, RFC 8656 §7.2);
    /// drain `pollTransmit` afterwards so the requests go out.
    public func close(now: Duration) {
        advance(to: now)
        relaysClosing = true
        for index in relays.indices {
            relays[index].client.deallocate(now: now)
            drainRelay(index)
        }
    }

    // MARK: - Internals

    func relayIndex(server: STUNAddress, base: STUNAddress) -> Int? {
        relays.firstIndex { $0.transport == .udp && $0.server == server && $0.hostBase.map { matches(base, $0) } == true }
    }

    /// `base` as the runtime names it (possibly a wildcard socket) is `known`.
    private func matches(_ base: STUNAddress, _ known: STUNAddress) -> Bool {
        base == known || (base.ip.allSatisfy { $0 == 0 } && base.family == known.family && base.port == known.port)
    }

    func relayIndex(relayedBase base: STUNAddress) -> Int? {
        relays.firstIndex { $0.relayed == base }
    }

    /// Sends `bytes` from a relayed base through its TURN server.
    func relaySend(_ bytes: [UInt8], relay index: Int, to destination: STUNAddress) {
        relays[index].client.send(bytes, to: destination, now: now)
        collectRelayTransmits(index)
    }

    func collectRelayTransmits(_ index: Int) {
        let relay = relays[index]
        // A UDP relay without a host base never got going: nothing to send from.
        guard relay.transport == .tcp || relay.hostBase != nil else { return }
        while let bytes = relay.client.pollTransmit() {
            transmits.append(ICETransmit(
                bytes: bytes, source: relay.hostBase ?? relay.server, destination: relay.server, route: relay.route))
        }
    }

    /// Runs the TURN clients' timers and the gathering deadline.
    func serviceRelays() {
        for index in relays.indices {
            if let due = relays[index].client.pollTimeout(), due <= now {
                relays[index].client.handleTimeout(now: now)
            }
            if !relays[index].finished, now >= relays[index].startedAt + config.relayGatherTimeout {
                relays[index].finished = true
                relays[index].failure = .noAnswer(server: relays[index].server, seconds: Int(config.relayGatherTimeout.wholeMilliseconds / 1000))
            }
            drainRelay(index)
        }
    }

    func relayDeadline() -> Duration? {
        var deadline: Duration?
        for relay in relays {
            for time in [relay.client.pollTimeout(), relay.finished ? nil : relay.startedAt + config.relayGatherTimeout] {
                guard let time else { continue }
                deadline = min(deadline ?? time, time)
            }
        }
        return deadline
    }

    /// Sends what the TURN client queued and acts on its events (which may
    /// queue more, such as answers to checks that came through the relay).
    func drainRelay(_ index: Int) {
        collectRelayTransmits(index)
        while let event = relays[index].client.pollEvent() {
            handleRelayEvent(event, relay: index)
            collectRelayTransmits(index)
        }
    }
}

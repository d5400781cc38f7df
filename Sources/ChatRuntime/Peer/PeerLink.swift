import ChatClient
import DTLS
import Glibc
import ICE
import PeerConnection
import Runtime
import STUN

/// The I/O of one `PeerConnection` on the event loop: one UDP socket per
/// local address (kept in step with the machine's addresses by
/// `networkChanged(to:)`), TURN streams, the connection's timer. It feeds
/// the connection what arrives and sends what it transmits; its events are
/// the session's (`ChatSession.handlePeerActivity`), never polled here
/// except to discard them once the link is closing.
public final class PeerLink {
    public let connection: PeerConnection
    let loop: EventLoop
    var sockets: [STUNAddress: UDPSocket] = [:]
    private var timer: Timer?
    private var timerDeadline: Duration?
    let streams: TURNStreams
    private(set) var closed = false
    /// Set while a graceful close runs: called once the sockets are closed.
    private var whenClosed: (() -> Void)?
    private var closeDeadline: Timer?
    /// Something arrived or a timer ran: the connection has news for the
    /// session (called from the loop's callbacks, never from `flush`).
    public var onActivity: (() -> Void)?
    /// Asks the gateway to map the ICE port (PeerLink+PortMapping).
    var portMapper: PortMapperLink?
    /// With `CHATCLI_DEBUG_SCTP` set: when the association's state is next written to stderr.
    private var nextSCTPTrace: Duration? = getenv("CHATCLI_DEBUG_SCTP") != nil ? .zero : nil

    /// `interfaces`: the machine's addresses (`NetworkInterfaces.addresses()`;
    /// link-local IPv6 ones with their zone).
    /// `turnServers` add relayed candidates (`caFile` is trusted for
    /// `turns:` ones); `relayOnly` offers nothing else; `hardNATProbing`
    /// turns on port probing (`PortProbingConfig`); `portMapping` asks the
    /// default gateway for a mapping of the ICE port (PCP, NAT-PMP, UPnP).
    public init(loop: EventLoop, isOfferer: Bool, interfaces: [SocketAddress], stunServers: [SocketAddress],
                turnServers: [ICETURNServer] = [], relayOnly: Bool = false, caFile: String? = nil,
                hardNATProbing: Bool = false, portMapping: Bool = false, certificate: DTLSCertificate? = nil) throws(ClientError) {
        self.loop = loop
        streams = TURNStreams(loop: loop, servers: turnServers, caFile: caFile)
        var bound: [STUNAddress: UDPSocket] = [:]
        for address in interfaces {
            guard let (base, socket) = Self.bind(address, loop: loop) else { continue }
            bound[base] = socket
        }
        guard !bound.isEmpty else { throw .localSystem("no local address could be bound for UDP") }
        var config = PeerConnectionConfig()
        config.stunServers = Self.stunServers(stunServers.compactMap { STUNAddress($0) }, probing: hardNATProbing)
        config.turnServers = turnServers
        config.ice.relayOnly = relayOnly
        config.ice.portProbing = hardNATProbing ? PortProbingConfig() : nil
        config.certificate = certificate
        config.announcesCodePAKE = true
        // CHATCLI_MAX_PACKET=1200 keeps every packet at an internet path's size (benchmarks).
        if let text = getenv("CHATCLI_MAX_PACKET"), let limit = Int(String(cString: text)), limit >= 256 { config.maxPacketSize = limit }
        // CHATCLI_CONGESTION_CONTROL=cubic (or bbr) picks the SCTP sender's congestion control (benchmarks).
        if let text = getenv("CHATCLI_CONGESTION_CONTROL"), let cc = CongestionControlAlgorithm(rawValue: String(cString: text)) { config.congestionControl = cc }
        do {
            connection = try PeerConnection(isOfferer: isOfferer, localAddresses: bound.keys.sorted { $0.description < $1.description },
                                            config: config, now: loop.now.duration)
        } catch {
            for socket in bound.values { socket.close() }
            throw .localSystem(error.description)
        }
        for (base, socket) in bound { listen(socket, on: base) }
        listenToTURNStreams()
        if portMapping && !relayOnly { startPortMapping() }
    }

    static func bind(_ address: SocketAddress, loop: EventLoop) -> (STUNAddress, UDPSocket)? {
        guard let socket = try? UDPSocket(loop: loop, bind: address.with(port: 0)) else { return nil }
        guard let base = STUNAddress(socket.localAddress) else {
            socket.close()
            return nil
        }
        return (base, socket)
    }

    /// Datagrams on a local socket go to the connection as received on `base`.
    func listen(_ socket: UDPSocket, on base: STUNAddress) {
        sockets[base] = socket
        // Every datagram of one read first, then one pump for all of them.
        socket.onDatagram = { [weak self] bytes, source in
            guard let self, !self.closed, let from = STUNAddress(source) else { return }
            self.connection.handleInput(bytes, from: from, to: base, now: self.loop.now.duration)
        }
        socket.onDatagramsRead = { [weak self] in self?.pump() }
    }

    /// After input from the network or a timer: flushed, then the session hears of it.
    func pump() {
        flush()
        if !closed { onActivity?() }
    }

    /// Runs the connection's due timers and sends what it has to send;
    /// the driver calls it after the session handed the connection anything.
    public func flush() {
        guard !closed else { return }
        let now = loop.now.duration
        if let due = connection.pollTimeout(), due <= now { connection.handleTimeout(now: now) }
        serviceProbeSockets()
        sendTransmits()
        traceSCTP(now: now)
        if whenClosed != nil {
            // No longer the session's: what it says goes nowhere.
            while connection.pollEvent() != nil {}
            while connection.pollChannelEvent() != nil {}
        }
        if whenClosed != nil, connection.isShutDown {
            finishClosing()
            return
        }
        if let due = connection.pollTimeout() {
            // Moved only when the deadline comes earlier: a timer that fires
            // before a deadline that moved later costs one idle pump, far
            // less than a new timer for every read.
            let at = max(due, now + .microseconds(100))
            if timer?.isPending != true || timerDeadline.map({ at < $0 }) ?? true {
                timer?.cancel()
                timerDeadline = at
                timer = loop.schedule(at: Instant(at)) { [weak self] in self?.pump() }
            }
        } else {
            timer?.cancel()
        }
    }

    /// Once a second at most, with `CHATCLI_DEBUG_SCTP` set: the association's
    /// window, flight, model and counters on stderr (for bug reports and benches).
    private func traceSCTP(now: Duration) {
        guard let due = nextSCTPTrace, now >= due, let line = connection.sctpDiagnostics else { return }
        nextSCTPTrace = now + .seconds(1)
        let c = now.components
        let text = Array("sctp t=\(c.seconds).\(c.attoseconds / 100_000_000_000_000_000) \(line)\n".utf8)
        _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// UDP datagrams from their base's socket (a link-local destination in
    /// that socket's zone: ICE pairs link-local only with link-local);
    /// TURN-over-TCP bytes on the stream to their server. Each socket's
    /// datagrams go to the kernel together (`sendmmsg`).
    private func sendTransmits() {
        var batching: [UDPSocket] = []
        defer { for socket in batching { socket.endBatch() } }
        while let transmit = connection.pollTransmit() {
            if transmit.route == .turnStream {
                streams.write(transmit.bytes, to: transmit.destination)
                continue
            }
            guard let socket = sockets[transmit.source], var destination = SocketAddress(transmit.destination) else { continue }
            if destination.isLinkLocal { destination = destination.with(scopeID: socket.localAddress.scopeID) }
            if !batching.contains(where: { $0 === socket }) {
                socket.beginBatch()
                batching.append(socket)
            }
            socket.send(transmit.bytes, to: destination)
        }
    }

    /// Graceful: the channels are closed the standard way and SCTP shuts
    /// down (`PeerConnection.close`) while the sockets stay open, for at most
    /// `grace`; without an association, close_notify goes out and the sockets
    /// close after `delay`. `done` runs once they are closed.
    public func close(delay: Duration = .milliseconds(100), grace: Duration = .seconds(2), done: @escaping () -> Void = {}) {
        guard !closed, whenClosed == nil else { return done() }
        whenClosed = done
        // Deleted now: a UPnP delete has the grace period to finish in.
        portMapper?.release()
        connection.close()
        let graceful = !connection.isShutDown
        onActivity = nil
        // Kept alive until then: the relays are deleted when it closes.
        closeDeadline = loop.schedule(after: graceful ? grace : delay) { self.finishClosing() }
        flush()
    }

    private func finishClosing() {
        closeDeadline?.cancel()
        closeDeadline = nil
        shutDown()
        let done = whenClosed
        whenClosed = nil
        done?()
    }

    public func shutDown() {
        guard !closed else { return }
        portMapper?.release()
        portMapper = nil
        connection.releaseRelays(now: loop.now.duration)
        sendTransmits()
        streams.closeAll()
        closed = true
        timer?.cancel()
        for socket in sockets.values { socket.close() }
        sockets = [:]
    }
}

import Runtime
import STUN
import TURN
import TURNServer

/// The embedded TURN relay on the event loop: TURN over UDP on the STUN
/// sockets (every non-Binding message `STUNService` receives), TURN over
/// TCP or TLS on connections to the HTTP port whose first byte says STUN
/// (HTTP starts with a letter, STUN with 0x00), and one UDP socket per
/// relayed address. The decisions live in the sans-IO `TURNServer`; this
/// class moves bytes and time.
final class RelayService {
    let loop: EventLoop
    let core: TURNServer
    let settings: RelaySettings
    let log: AccessLog
    private var relays: [STUNAddress: UDPSocket] = [:]
    /// The STUN port's sockets, by local address, to answer UDP clients from.
    private var udpSockets: [STUNAddress: UDPSocket] = [:]
    private var streams: [FiveTuple: StreamClient] = [:]
    private var sweep: Timer?
    private var nextRelayPort: UInt16?

    /// A stream whose unsent output stays over this is not reading: relayed
    /// data to it is dropped (as a congested path would), and it is cut
    /// after `backedUpTimeout`.
    static let streamOutputLimit = 256 * 1024
    static let backedUpTimeout = Duration.seconds(10)
    /// A stream that holds no allocation this long is closed.
    static let idleStreamTimeout = Duration.seconds(60)

    final class StreamClient {
        let stream: any ByteStream
        let opened: Instant
        var framer = TURNStreamFramer()
        var backedUpSince: Instant?
        var onClose: () -> Void = {}

        init(stream: any ByteStream, opened: Instant) {
            self.stream = stream
            self.opened = opened
        }
    }

    init(loop: EventLoop, settings: RelaySettings, secret: [UInt8], servicePorts: Set<UInt16>, log: AccessLog) {
        self.loop = loop
        self.settings = settings
        self.log = log
        var configuration = TURNServerConfiguration(realm: "chatcli", secret: secret)
        let own = NetworkInterfaces.addresses(includeLoopback: true)
        configuration.peerPolicy = TURNPeerPolicy(allowed: settings.allowedPeers, ownAddresses: Set(own.map(\.ipBytes)), servicePorts: servicePorts)
        configuration.relayFamilies = Set(own.map { $0.family == .ipv4 ? TURNFamily.ipv4 : .ipv6 })
        configuration.externalAddresses = settings.externalAddresses
        configuration.allocationsPerUser = settings.allocationsPerUser
        configuration.maxAllocations = settings.maxAllocations
        configuration.bandwidthPerAllocation = settings.bandwidthPerAllocation
        configuration.totalBandwidth = settings.totalBandwidth
        var random = SystemRandomNumberGenerator()
        core = TURNServer(configuration: configuration, now: loop.now.duration, random: &random)
        nextRelayPort = settings.relayPorts?.lowerBound
        sweep = loop.schedule(after: .seconds(1)) { [weak self] in self?.tick() }
    }

    private var unixTime: Int64 { wallClockMilliseconds() / 1000 }

    // MARK: UDP clients (the STUN port)

    func register(udp socket: UDPSocket) {
        if let local = STUNAddress(socket.localAddress) { udpSockets[local] = socket }
    }

    func receive(datagram bytes: [UInt8], from source: SocketAddress, on socket: UDPSocket) {
        guard let client = STUNAddress(source), let server = STUNAddress(socket.localAddress) else { return }
        let tuple = FiveTuple(client: client, server: server, transport: .udp)
        apply(core.handleClient(bytes, from: tuple, now: loop.now.duration, unixTime: unixTime))
    }

    // MARK: Stream clients (the HTTP port)

    /// Takes over a connection whose first bytes are `initial` (a STUN
    /// message's start). `onClose` runs once when it closes.
    func adopt(_ stream: any ByteStream, remote: SocketAddress, local: SocketAddress, tls: Bool, initial: [UInt8], onClose: @escaping () -> Void) {
        guard let client = STUNAddress(remote), let server = STUNAddress(local) else { stream.abort(); return }
        let tuple = FiveTuple(client: client, server: server, transport: tls ? .tls : .tcp)
        let entry = StreamClient(stream: stream, opened: loop.now)
        entry.onClose = onClose
        streams[tuple] = entry
        stream.onData = { [weak self] bytes in self?.receive(stream: bytes, tuple: tuple) }
        stream.onDrain = { [weak entry] in entry?.backedUpSince = nil }
        stream.onClose = { [weak self] _ in self?.streamClosed(tuple) }
        receive(stream: initial, tuple: tuple)
    }

    private func receive(stream bytes: [UInt8], tuple: FiveTuple) {
        guard let entry = streams[tuple] else { return }
        entry.framer.append(bytes)
        while let frame = entry.framer.next() {
            switch frame {
            case .stun(let message), .channelData(let message):
                apply(core.handleClient(message, from: tuple, now: loop.now.duration, unixTime: unixTime))
            }
        }
        // Not STUN or ChannelData: the stream cannot be resynchronised.
        if entry.framer.isCorrupt { entry.stream.abort() }
    }

    private func streamClosed(_ tuple: FiveTuple) {
        guard let entry = streams.removeValue(forKey: tuple) else { return }
        entry.onClose()
        apply(core.clientClosed(tuple))
    }

    private func write(_ bytes: [UInt8], to tuple: FiveTuple) {
        if tuple.transport == .udp {
            guard let socket = udpSockets[tuple.server], let to = SocketAddress(ipBytes: tuple.client.ip, port: tuple.client.port) else { return }
            socket.send(bytes, to: to)
            return
        }
        guard let entry = streams[tuple] else { return }
        if entry.stream.bufferedAmount > Self.streamOutputLimit {
            let since = entry.backedUpSince ?? loop.now
            entry.backedUpSince = since
            if loop.now - since >= Self.backedUpTimeout {
                log.write("turn_cut", ["client": SocketAddress(ipBytes: tuple.client.ip, port: tuple.client.port).map(log.client) ?? "?", "reason": "not reading"])
                entry.stream.abort()
            }
            return
        }
        entry.stream.write(bytes)
    }

    // MARK: Relayed addresses

    private func openRelay(_ pending: PendingAllocation) -> STUNAddress? {
        let wantIPv4 = pending.family == .ipv4
        var ip: SocketAddress?
        if (pending.tuple.server.family == .ipv4) == wantIPv4, !pending.tuple.server.ip.allSatisfy({ $0 == 0 }) {
            ip = SocketAddress(ipBytes: pending.tuple.server.ip, port: 0)
        } else {
            ip = NetworkInterfaces.addresses(includeLoopback: false).first { ($0.family == .ipv4) == wantIPv4 }
        }
        guard let ip else { return nil }
        for port in pending.evenPort ? evenCandidatePorts(ip) : candidatePorts() {
            guard let socket = try? UDPSocket(loop: loop, bind: ip.with(port: port)),
                  let address = STUNAddress(socket.localAddress) else { continue }
            if pending.evenPort && address.port % 2 != 0 {
                socket.close()
                continue
            }
            socket.onDatagram = { [weak self] bytes, source in
                guard let self, let peer = STUNAddress(source) else { return }
                self.apply(self.core.handlePeer(bytes, from: peer, relay: address, now: self.loop.now.duration))
            }
            relays[address] = socket
            return address
        }
        return nil
    }

    /// Even ports to try for EVEN-PORT: the range's even ports, or, with no
    /// range, the even neighbours of ports the kernel picks. The picks are
    /// held open while looking, since a kernel (or a sandbox's network
    /// stack) may hand the same odd port back as soon as it is free again.
    private func evenCandidatePorts(_ ip: SocketAddress) -> [UInt16] {
        guard settings.relayPorts == nil else { return candidatePorts().filter { $0 % 2 == 0 } }
        var held: [UDPSocket] = []
        defer { held.forEach { $0.close() } }
        var ports: [UInt16] = []
        for _ in 0..<8 {
            guard let socket = try? UDPSocket(loop: loop, bind: ip.with(port: 0)) else { break }
            held.append(socket)
            let port = socket.localAddress.port
            ports += port % 2 == 0 ? [port] : [port &+ 1, port &- 1].filter { $0 >= 1024 }
        }
        return ports
    }

    /// Port 0 (the kernel's pick), or up to 64 ports of the range from a
    /// rotating cursor, so a busy port costs a retry, not a refusal.
    private func candidatePorts() -> [UInt16] {
        guard let range = settings.relayPorts, var port = nextRelayPort else { return [0] }
        var ports: [UInt16] = []
        for _ in 0..<min(64, range.count) {
            ports.append(port)
            port = port == range.upperBound ? range.lowerBound : port + 1
        }
        nextRelayPort = port
        return ports
    }

    func apply(_ outputs: [TURNServerOutput]) {
        for output in outputs {
            switch output {
            case .toClient(let tuple, let bytes):
                write(bytes, to: tuple)
            case .toPeer(let relay, let peer, let bytes):
                guard let socket = relays[relay], let to = SocketAddress(ipBytes: peer.ip, port: peer.port) else { continue }
                socket.send(bytes, to: to)
            case .openRelay(let pending):
                let address = openRelay(pending)
                if address == nil { log.write("turn_refused", ["reason": "no relay port"]) }
                apply(core.relayOpened(pending, address: address, now: loop.now.duration))
            case .closeRelay(let address):
                relays.removeValue(forKey: address)?.close()
            }
        }
    }

    private func tick() {
        let now = loop.now
        apply(core.handleTimeout(now: now.duration))
        for (tuple, entry) in streams where core.relayedAddress(for: tuple) == nil && now - entry.opened >= Self.idleStreamTimeout {
            entry.stream.abort()
        }
        sweep = loop.schedule(after: .seconds(1)) { [weak self] in self?.tick() }
    }

    func close() {
        sweep?.cancel()
        for entry in streams.values { entry.stream.close() }
        for socket in relays.values { socket.close() }
        relays = [:]
    }
}

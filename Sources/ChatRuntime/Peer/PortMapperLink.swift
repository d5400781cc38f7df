import ChatClient
import Glibc
import PortMapping
import Runtime
import STUN

/// Runs a `PortMapper` on the event loop: a UDP socket on the LAN address
/// for PCP, NAT-PMP and SSDP, a TCP connection per UPnP HTTP exchange, and
/// the mapper's timer. The ICE socket's port is what gets mapped.
final class PortMapperLink {
    let mapper: PortMapper
    let loop: EventLoop
    private var socket: UDPSocket?
    private var timer: Timer?
    private var connections: [Int: TCPConnection] = [:]
    private var released = false
    private var pendingConnects = 0
    private var whenReleased: (() -> Void)?
    private var keptAlive: PortMapperLink?
    /// The exchanges `release` started (UPnP DeletePortMapping).
    private var deleteIDs: Set<Int> = []
    var onEvent: ((PortMapperEvent) -> Void)?
    /// After every datagram, answer and timer the mapper handled (doctor
    /// watches `mapper.offers` fill in).
    var onProgress: (() -> Void)?

    /// `CHATCLI_PORT_MAPPING=pcp,nat-pmp,upnp` (any of them) limits the
    /// protocols asked, to see what each one of a router does (doctor, tests);
    /// `off` is handled by the command line.
    static var configured: PortMapperConfig {
        var config = PortMapperConfig()
        if let text = getenv("CHATCLI_PORT_MAPPING") {
            let methods = String(cString: text).split(separator: ",").compactMap { PortMapping.Method(rawValue: String($0)) }
            if !methods.isEmpty { config.methods = Set(methods) }
        }
        return config
    }

    /// `nil` when no IPv4 default gateway is reachable from `base`'s address.
    init?(loop: EventLoop, base: STUNAddress, gateway: [UInt8], config: PortMapperConfig = PortMapperLink.configured) {
        guard let local = SocketAddress(ipBytes: base.ip, port: 0), let socket = try? UDPSocket(loop: loop, bind: local) else { return nil }
        self.loop = loop
        self.socket = socket
        mapper = PortMapper(gateway: gateway, client: base, config: config)
        socket.onDatagram = { [weak self] bytes, source in
            guard let self, let from = STUNAddress(source) else { return }
            self.mapper.handleDatagram(bytes, from: from, now: self.loop.now.duration)
        }
        socket.onDatagramsRead = { [weak self] in self?.pump() }
    }

    func start() {
        mapper.start(now: loop.now.duration)
        pump()
    }

    /// Deletes the mapping: PCP and NAT-PMP datagrams go out now; a UPnP
    /// delete is an HTTP exchange, and `done` runs when it has finished (at
    /// most `releaseLimit` later). A process that exits sooner leaves the
    /// UPnP mapping to its lease.
    func release(_ done: @escaping () -> Void = {}) {
        guard !released else { return done() }
        // Exchanges still out are moot now (the delete below opens its own).
        let stale = connections
        connections = [:]
        for connection in stale.values { connection.abort() }
        mapper.release(now: loop.now.duration)
        released = true
        timer?.cancel()
        while let transmit = mapper.pollTransmit() {
            switch transmit {
            case .datagram(let bytes, let to):
                if let destination = SocketAddress(to) { socket?.send(bytes, to: destination) }
            case .http(let id, let to, let request):
                deleteIDs.insert(id)
                exchange(id: id, with: to, request: request)
            }
        }
        socket?.close()
        socket = nil
        guard !connections.isEmpty || pendingConnects > 0 else { return done() }
        whenReleased = done
        // Kept alive until the delete is done, even if its owner lets go now.
        keptAlive = self
        timer = loop.schedule(after: Self.releaseLimit) { [weak self] in self?.finishRelease() }
    }

    static let releaseLimit: Duration = .seconds(2)

    private func finishRelease() {
        timer?.cancel()
        let done = whenReleased
        whenReleased = nil
        keptAlive = nil
        done?()
    }

    private func pump() {
        guard !released else { return }
        let now = loop.now.duration
        if let due = mapper.pollTimeout(), due <= now { mapper.handleTimeout(now: now) }
        while let transmit = mapper.pollTransmit() {
            switch transmit {
            case .datagram(let bytes, let to):
                if let destination = SocketAddress(to) { socket?.send(bytes, to: destination) }
            case .http(let id, let to, let request):
                exchange(id: id, with: to, request: request)
            }
        }
        while let event = mapper.pollEvent() { onEvent?(event) }
        onProgress?()
        guard !released else { return }
        timer?.cancel()
        if let due = mapper.pollTimeout() {
            timer = loop.schedule(at: Instant(max(due, now + .milliseconds(1)))) { [weak self] in self?.pump() }
        }
    }

    /// One HTTP/1.1 exchange with `Connection: close`: the answer is what
    /// the gateway sent until it closed, at most `UPnP.maxDocumentSize` and
    /// a head's worth more.
    private func exchange(id: Int, with host: STUNAddress, request: [UInt8]) {
        guard let address = SocketAddress(host) else { return }
        let limit = UPnP.maxDocumentSize + 16 * 1024
        pendingConnects += 1
        TCPConnection.connect(loop: loop, to: address, timeout: .seconds(2)) { [weak self] result in
            guard let self else { return }
            self.pendingConnects -= 1
            // Once released, only the delete's exchanges go ahead: a request
            // from before (an AddPortMapping, say) must never reach the gateway.
            if self.released, case .success(let stale) = result, !self.deleteIDs.contains(id) { stale.abort() }
            guard case .success(let connection) = result, !self.released || self.deleteIDs.contains(id) else {
                if self.released {
                    if self.connections.isEmpty && self.pendingConnects == 0 { self.finishRelease() }
                    return
                }
                self.mapper.handleHTTPResponse(nil, id: id, now: self.loop.now.duration)
                return self.pump()
            }
            self.connections[id] = connection
            var received: [UInt8] = []
            connection.onData = { [weak self, weak connection] bytes in
                received.append(contentsOf: bytes)
                if received.count > limit {
                    connection?.abort()
                    self?.finish(id: id, nil)
                }
            }
            connection.onClose = { [weak self] _ in self?.finish(id: id, received) }
            connection.write(request)
        }
    }

    private func finish(id: Int, _ bytes: [UInt8]?) {
        guard connections.removeValue(forKey: id) != nil else { return }
        if released {
            if connections.isEmpty && pendingConnects == 0 { finishRelease() }
            return
        }
        mapper.handleHTTPResponse(bytes, id: id, now: loop.now.duration)
        pump()
    }
}

/// The IPv4 default gateway and the interface it is reached through, from
/// the kernel's routing table (`/proc/net/route`; the lowest metric wins).
enum DefaultGateway {
    static func ipv4() -> (interface: String, gateway: [UInt8])? {
        var best: (interface: String, gateway: [UInt8], metric: Int)?
        for route in DefaultRoutes.read() {
            let fields = route.split(separator: " ")
            // "interface gateway metric"; IPv4 gateways are 8 hex digits in host order.
            guard fields.count == 3, fields[1].count == 8, let raw = UInt32(fields[1], radix: 16), raw != 0,
                  let metric = Int(fields[2]) else { continue }
            let gateway = withUnsafeBytes(of: raw) { Array($0) }
            if best.map({ metric < $0.metric }) ?? true { best = (String(fields[0]), gateway, metric) }
        }
        return best.map { ($0.interface, $0.gateway) }
    }

    /// The ICE base on the gateway's interface (its first IPv4 address).
    static func base(among bases: [STUNAddress], interface: String) -> STUNAddress? {
        let addresses = LinkInterface.all().first { $0.name == interface }?.addresses.filter { $0.family == .ipv4 } ?? []
        return bases.first { base in addresses.contains { $0.ipBytes == base.ip } }
    }
}

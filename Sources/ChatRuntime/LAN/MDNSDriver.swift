import ChatClient
import MDNS
import Runtime

/// Runs the mDNS cores on the event loop: per interface, a socket on
/// 224.0.0.251:5353 (and one on [ff02::fb]:5353 when the interface has
/// IPv6), a responder made with that interface's addresses only, and a
/// querier. Our own datagrams come back through multicast loopback (so
/// that Avahi on this host hears them); they are recognised and dropped.
public final class MDNSDriver {
    final class Link {
        let interface: LinkInterface
        var sockets: [MulticastSocket] = []
        var responder: MDNSResponder?
        var querier: MDNSQuerier?
        init(interface: LinkInterface) { self.interface = interface }
    }

    let loop: EventLoop
    var links: [Link] = []
    var timer: Timer?
    /// Datagrams we sent in the last two seconds, to drop their loopback copies.
    var recentlySent: [(bytes: [UInt8], at: Duration)] = []
    var ownAddresses: Set<SocketAddress> = []
    /// Something the queriers know changed.
    public var onChange: (() -> Void)?

    /// Opens the sockets; throws when no interface could join the group.
    public init(loop: EventLoop, interfaces: [LinkInterface]) throws(ClientError) {
        self.loop = loop
        var failure = LANFailure.noMulticast(interface: nil, reason: nil)
        for interface in interfaces {
            let link = Link(interface: interface)
            var groups: [SocketAddress] = []
            if interface.addresses.contains(where: { $0.family == .ipv4 }) { groups.append(SocketAddress(ipBytes: MDNS.ipv4Group, port: MDNS.port)!) }
            if interface.addresses.contains(where: { $0.family == .ipv6 }) { groups.append(SocketAddress(ipBytes: MDNS.ipv6Group, port: MDNS.port)!) }
            for group in groups {
                do {
                    let socket = try MulticastSocket(loop: loop, group: group, interface: interface.name, index: interface.index)
                    socket.onDatagram = { [weak self, weak link] bytes, from in
                        guard let self, let link else { return }
                        self.received(bytes, from: from, on: link)
                    }
                    link.sockets.append(socket)
                } catch {
                    failure = .noMulticast(interface: interface.name, reason: error.reason)
                }
            }
            if !link.sockets.isEmpty {
                links.append(link)
                ownAddresses.formUnion(interface.addresses)
            }
        }
        guard !links.isEmpty else { throw .lan(failure) }
    }

    var now: Duration { loop.now.duration }
    public var interfaceNames: [String] { links.map(\.interface.name) }

    /// Publishes `service` on every interface, each with its own addresses.
    public func advertise(_ service: ServiceInstance, hostLabel: String) {
        for link in links {
            let addresses = link.interface.addresses.map(\.ipBytes)
            link.responder = MDNSResponder(service: service, hostLabel: hostLabel, addresses: addresses, now: now)
        }
        pump()
    }

    /// Goodbye (TTL 0) on every interface, sent now; the responders stop.
    public func withdraw() {
        for link in links { link.responder?.goodbye(now: now) }
        pump()
        for link in links { link.responder = nil }
    }

    public func browse(_ serviceType: DNSName) {
        for link in links {
            let querier = link.querier ?? MDNSQuerier()
            querier.browse(serviceType, now: now)
            link.querier = querier
        }
        pump()
    }

    /// What the queriers know, each service with the addresses heard on its
    /// interface (link-local IPv6 ones scoped to it) and the port.
    public func services() -> [(service: ResolvedService, addresses: [SocketAddress])] {
        var found: [(ResolvedService, [SocketAddress])] = []
        for link in links {
            guard let querier = link.querier else { continue }
            for service in querier.services(now: now) {
                let addresses = service.addresses.compactMap { bytes -> SocketAddress? in
                    guard let plain = SocketAddress(ipBytes: bytes, port: service.port) else { return nil }
                    guard plain.family == .ipv6, bytes.starts(with: [0xFE, 0x80]) else { return plain }
                    return SocketAddress(ip: "\(plain.ip)%\(link.interface.index)", port: service.port)
                }
                found.append((service, addresses))
            }
        }
        return found
    }

    public func close() {
        timer?.cancel()
        timer = nil
        for link in links { for socket in link.sockets { socket.close() } }
        links = []
    }

    // MARK: Moving bytes and time

    private func received(_ bytes: [UInt8], from: SocketAddress, on link: Link) {
        let plain = from.with(port: 0)
        if ownAddresses.contains(where: { $0.ipBytes == plain.ipBytes }) && recentlySent.contains(where: { $0.bytes == bytes }) {
            return
        }
        link.responder?.handle(bytes, from: from.ipBytes, port: from.port, now: now)
        link.querier?.handle(bytes, from: from.ipBytes, port: from.port, now: now)
        pump()
        if link.querier != nil { onChange?() }
    }

    func pump() {
        recentlySent.removeAll { now - $0.at > .seconds(2) }
        for link in links {
            while let transmit = link.responder?.pollTransmit() { send(transmit, on: link) }
            while let transmit = link.querier?.pollTransmit() { send(transmit, on: link) }
        }
        timer?.cancel()
        timer = nil
        let deadlines = links.flatMap { [$0.responder?.pollTimeout(), $0.querier?.pollTimeout()] }.compactMap { $0 }
        if let due = deadlines.min() {
            timer = loop.schedule(at: Instant(due)) { [weak self] in
                guard let self else { return }
                for link in self.links {
                    link.responder?.handleTimeout(now: self.now)
                    link.querier?.handleTimeout(now: self.now)
                }
                self.pump()
                self.onChange?()
            }
        }
    }

    private func send(_ transmit: MDNSTransmit, on link: Link) {
        let bytes = transmit.bytes
        recentlySent.append((bytes, now))
        for socket in link.sockets {
            switch transmit.destination {
            case .multicast:
                socket.send(bytes, to: socket.group)
            case .unicast(let address, let port):
                guard address.count == socket.group.ipBytes.count, var target = SocketAddress(ipBytes: address, port: port) else { continue }
                if target.family == .ipv6, address.starts(with: [0xFE, 0x80]) {
                    target = SocketAddress(ip: "\(target.ip)%\(link.interface.index)", port: port) ?? target
                }
                socket.send(bytes, to: target)
            }
        }
    }
}

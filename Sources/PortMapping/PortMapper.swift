import STUN
import Wire

/// A sans-IO port-mapping client (the shape of Tailscale's portmapper):
/// PCP (RFC 6887), NAT-PMP (RFC 6886) and UPnP IGD probed in parallel, the
/// best one that answers asked for a UDP mapping of one internal port, the
/// mapping refreshed at half its lifetime and deleted on `release`.
///
/// It never sits on the critical path: its owner offers the mapping as one
/// more candidate when (if) `mapped` arrives, and a gateway that says
/// nothing costs `probeWindow` of background work, not a delay.
///
/// Driven like every core here: `start`, `handleDatagram`,
/// `handleHTTPResponse`, `handleTimeout` with the time, polled with
/// `pollTransmit`, `pollEvent`, `pollTimeout`.
public final class PortMapper {
    enum State {
        case idle
        /// PCP MAP, NAT-PMP's external address request and SSDP are out.
        case probing(deadline: Duration)
        /// NAT-PMP chosen: its map request is out.
        case natPMP(externalIP: [UInt8], deadline: Duration)
        /// UPnP chosen: an HTTP exchange is out.
        case upnp(UPnPStep, request: Int, deadline: Duration)
        case mapped(PortMapping, refreshAt: Duration?)
        /// A refresh is out; the mapping stays offered until it fails.
        case refreshing(PortMapping, deadline: Duration)
        case finished
    }

    enum UPnPStep {
        case description(UPnP.Location)
        case add(UPnP.Control, externalPort: UInt16, lease: UInt32, attempt: Int)
        case externalAddress(UPnP.Control, externalPort: UInt16, lease: UInt32)
    }

    let gateway: [UInt8]
    /// The LAN address and port to map (the ICE socket's).
    let client: STUNAddress
    let config: PortMapperConfig
    var random: any RandomNumberGenerator
    let nonce: [UInt8]
    var state: State = .idle
    public internal(set) var offers = PortMappingOffers()
    /// Why no mapping is offered, once that is known.
    public internal(set) var failure: PortMappingError?
    var transmits = Deque<PortMapperTransmit>()
    var events = Deque<PortMapperEvent>()
    /// Requests sent again until answered or the step's deadline.
    var resend: (bytes: [[UInt8]], next: Duration, index: Int)?
    var pcpFailed = false
    var natPMPExternal: [UInt8]?
    var natPMPFailed = false
    var upnpLocation: UPnP.Location?
    var nextHTTPID = 0
    /// The UPnP control point of the current mapping (to refresh and delete).
    var upnpControl: UPnP.Control?
    /// The UPnP mapping being renewed (AddPortMapping again, same port).
    var upnpRefreshing: PortMapping?

    /// `gateway`: the default router's IPv4 address; `client`: the local
    /// address on its network and the UDP port to map.
    public init(gateway: [UInt8], client: STUNAddress, config: PortMapperConfig = PortMapperConfig(),
                random: any RandomNumberGenerator = SystemRandomNumberGenerator()) {
        self.gateway = gateway
        self.client = client
        self.config = config
        var random = random
        nonce = (0..<12).map { _ in UInt8.random(in: 0...255, using: &random) }
        self.random = random
    }

    var gatewayPCP: STUNAddress { STUNAddress(ip: gateway, port: PCP.serverPort) ?? client }
    var gatewaySSDP: STUNAddress { STUNAddress(ip: gateway, port: UPnP.ssdpPort) ?? client }

    public func start(now: Duration) {
        guard case .idle = state else { return }
        var probes: [[UInt8]] = []
        let methods = config.methods
        if methods.contains(.pcp) { probes.append(pcpRequest(lifetime: config.lifetime)) } else { pcpFailed = true }
        if methods.contains(.natPMP) { probes.append(NATPMP.externalAddressRequest()) } else { natPMPFailed = true }
        for probe in probes { transmits.append(.datagram(probe, to: gatewayPCP)) }
        if methods.contains(.upnp) {
            transmits.append(.datagram(UPnP.search(host: ipText(gateway)), to: gatewaySSDP))
        }
        state = .probing(deadline: now + config.probeWindow)
        resend = probes.isEmpty ? nil : (probes, now + (config.retransmitDelays.first ?? config.probeWindow), 0)
    }

    public func pollTransmit() -> PortMapperTransmit? { transmits.popFirst() }
    public func pollEvent() -> PortMapperEvent? { events.popFirst() }

    public func pollTimeout() -> Duration? {
        let deadline: Duration? = switch state {
        case .idle, .finished: nil
        case .probing(let deadline), .natPMP(_, let deadline), .upnp(_, _, let deadline), .refreshing(_, let deadline): deadline
        case .mapped(_, let refreshAt): refreshAt
        }
        return [deadline, resend?.next].compactMap { $0 }.min()
    }

    public func handleTimeout(now: Duration) {
        if var pending = resend, pending.next <= now {
            for bytes in pending.bytes { transmits.append(.datagram(bytes, to: gatewayPCP)) }
            pending.index += 1
            if pending.index < config.retransmitDelays.count {
                pending.next = now + config.retransmitDelays[pending.index]
                resend = pending
            } else {
                resend = nil
            }
        }
        switch state {
        case .probing(let deadline) where deadline <= now:
            resend = nil
            chooseFallback(now: now, probeOver: true)
        case .natPMP(_, let deadline) where deadline <= now:
            natPMPFailed = true
            fail(.refused, now: now)
        case .upnp(_, _, let deadline) where deadline <= now:
            upnpFailed(now: now)
        case .mapped(let mapping, let refreshAt?) where refreshAt <= now:
            refresh(mapping, now: now)
        case .refreshing(let mapping, let deadline) where deadline <= now:
            resend = nil
            state = .finished
            events.append(.lost(mapping))
        default:
            break
        }
    }

    /// Deletes the mapping (and a PCP mapping a late answer may still
    /// create); nothing more is sent or reported afterwards.
    public func release(now: Duration) {
        switch state {
        case .mapped(let mapping, _), .refreshing(let mapping, _):
            deleteMapping(mapping)
        case .probing:
            if config.methods.contains(.pcp) { transmits.append(.datagram(pcpRequest(lifetime: 0), to: gatewayPCP)) }
        default:
            break
        }
        resend = nil
        state = .finished
    }

    func deleteMapping(_ mapping: PortMapping) {
        switch mapping.method {
        case .pcp:
            let delete = pcpRequest(lifetime: 0)
            transmits.append(.datagram(delete, to: gatewayPCP))
            transmits.append(.datagram(delete, to: gatewayPCP))
        case .natPMP:
            let delete = NATPMP.mapRequest(internalPort: client.port, suggestedExternalPort: 0, lifetime: 0)
            transmits.append(.datagram(delete, to: gatewayPCP))
            transmits.append(.datagram(delete, to: gatewayPCP))
        case .upnp:
            guard let control = upnpControl else { return }
            transmits.append(.http(id: takeHTTPID(), to: control.location.host,
                                   request: UPnP.deletePortMapping(control, externalPort: mapping.external.port)))
        }
    }

    func pcpRequest(lifetime: UInt32, suggested: STUNAddress? = nil) -> [UInt8] {
        PCP.mapRequest(clientIP: client.ip, nonce: nonce, internalPort: client.port, lifetime: lifetime, suggestedExternal: suggested)
    }

    func takeHTTPID() -> Int {
        nextHTTPID += 1
        return nextHTTPID
    }

    func ipText(_ ip: [UInt8]) -> String { ip.map(String.init).joined(separator: ".") }

    /// No usable mapping: reported once, and the mapper stops.
    func fail(_ reason: PortMappingError, now: Duration) {
        if failure == nil || reason != .noGateway { failure = failure ?? reason }
        resend = nil
        state = .finished
        events.append(.unavailable)
    }

    func adopt(_ mapping: PortMapping, now: Duration, announce: Bool = true) {
        resend = nil
        // Refreshed at half the lifetime (RFC 6886 §3.3, RFC 6887 §11.2.1).
        let refreshAt = mapping.lifetime == 0 ? nil : now + .seconds(Int64(mapping.lifetime / 2))
        state = .mapped(mapping, refreshAt: refreshAt)
        failure = nil
        if announce { events.append(.mapped(mapping)) }
    }
}

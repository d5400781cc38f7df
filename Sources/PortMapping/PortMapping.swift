import STUN

/// A UDP port mapping a gateway granted: peers reach `external`, the
/// gateway forwards to the internal port, until `lifetime` runs out (it is
/// refreshed at half of it).
public struct PortMapping: Sendable, Equatable {
    public enum Method: String, Sendable, CaseIterable {
        case pcp
        case natPMP = "nat-pmp"
        case upnp
    }

    public var method: Method
    public var external: STUNAddress
    /// Seconds granted; 0 for a UPnP mapping the gateway only grants
    /// permanently (deleted when the chat ends).
    public var lifetime: UInt32

    public init(method: Method, external: STUNAddress, lifetime: UInt32) {
        self.method = method
        self.external = external
        self.lifetime = lifetime
    }
}

/// What the gateway answered to each protocol's probe: `nil` not (yet)
/// answered, `true` it speaks it, `false` it answered but refused.
public struct PortMappingOffers: Sendable, Equatable {
    public var pcp: Bool?
    public var natPMP: Bool?
    public var upnp: Bool?
    /// The gateway's own idea of its external address, usable or not.
    public var externalIP: [UInt8]?

    public init() {}
}

/// Something the driver must send: a datagram from any local UDP port to
/// the gateway, or one HTTP exchange (connect, write, read until the
/// gateway closes or `UPnP.maxDocumentSize` is passed, then
/// `PortMapper.handleHTTPResponse`).
public enum PortMapperTransmit: Sendable, Equatable {
    case datagram([UInt8], to: STUNAddress)
    case http(id: Int, to: STUNAddress, request: [UInt8])
}

public enum PortMapperEvent: Sendable, Equatable {
    /// A new mapping, or a refreshed one whose external address changed.
    case mapped(PortMapping)
    /// No protocol gave a usable mapping (no gateway answer within the
    /// probe window, refusals, or external addresses nobody can reach).
    case unavailable
    /// A mapping could not be refreshed: stop offering it.
    case lost(PortMapping)
}

public struct PortMapperConfig: Sendable {
    /// Seconds asked for (Tailscale and most clients: two hours).
    public var lifetime: UInt32 = 7200
    /// How long anything may take to answer a probe before the mapper says
    /// `unavailable`. Candidates are trickled, so nothing waits on it.
    public var probeWindow: Duration = .milliseconds(300)
    /// Each HTTP exchange with a UPnP gateway that answered SSDP.
    public var httpTimeout: Duration = .seconds(2)
    /// PCP and NAT-PMP requests are sent again after these delays (RFC 6886
    /// §3.1 starts at 250 ms; a LAN gateway answers in well under that).
    public var retransmitDelays: [Duration] = [.milliseconds(100), .milliseconds(150)]
    public var methods: Set<PortMapping.Method> = Set(PortMapping.Method.allCases)

    public init() {}
}

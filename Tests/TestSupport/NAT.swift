import STUN

/// RFC 4787 behaviour of a NAT: how it maps (§4.1) and how it filters (§5).
public enum Dependence: Hashable, Sendable {
    case endpointIndependent
    case addressDependent
    case addressAndPortDependent
}

/// The NAT kinds the tests combine, with their classic names.
public enum NATKind: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// No NAT: the host has a public address.
    case none
    /// EIM + EIF ("full cone").
    case fullCone
    /// EIM + address-dependent filtering ("restricted cone").
    case addressRestricted
    /// EIM + address-and-port-dependent filtering ("port-restricted cone").
    case portRestricted
    /// Address-and-port-dependent mapping and filtering ("symmetric").
    case symmetric
    /// A firewall that drops all UDP in and out.
    case udpBlocked

    public var mapping: Dependence { self == .symmetric ? .addressAndPortDependent : .endpointIndependent }

    public var filtering: Dependence {
        switch self {
        case .none, .fullCone: .endpointIndependent
        case .addressRestricted: .addressDependent
        case .portRestricted, .symmetric, .udpBlocked: .addressAndPortDependent
        }
    }

    public var description: String { rawValue }
}

/// A NAT between one private realm and the public one: mapping table and
/// per-mapping filter permissions. Mappings never expire in these tests.
public final class NAT {
    public let kind: NATKind
    public let publicIP: [UInt8]
    private var nextPort: UInt16 = 40000
    /// Like Linux `--random-fully`: each new mapping on a random free port
    /// in 1024…65535; otherwise ports count up from 40000.
    private var randomPorts: SeededRandom?

    private struct MappingKey: Hashable {
        let internalAddress: STUNAddress
        let destinationIP: [UInt8]?
        let destinationPort: UInt16?
    }

    private struct Binding {
        let internalAddress: STUNAddress
        var permittedIPs: Set<[UInt8]> = []
        var permittedAddresses: Set<STUNAddress> = []
    }

    private var mappings: [MappingKey: UInt16] = [:]
    private var bindings: [UInt16: Binding] = [:]
    /// Ports mapped on request (PCP, NAT-PMP, UPnP): public port → internal address.
    private var portMappings: [UInt16: STUNAddress] = [:]
    /// Remote addresses that came in through a requested mapping: replies to
    /// them leave from the mapped port (conntrack undoes the DNAT).
    private var mappedFlows: [STUNAddress: Set<STUNAddress>] = [:]

    public init(kind: NATKind, publicIP: [UInt8], randomPorts: SeededRandom? = nil) {
        self.kind = kind
        self.publicIP = publicIP
        self.randomPorts = randomPorts
    }

    private func newPort() -> UInt16 {
        guard var generator = randomPorts else {
            defer { nextPort &+= 1 }
            return nextPort
        }
        defer { randomPorts = generator }
        var port = UInt16.random(in: 1024...65535, using: &generator)
        while bindings[port] != nil { port = UInt16.random(in: 1024...65535, using: &generator) }
        return port
    }

    /// The public source of a packet from `internalAddress` to
    /// `destination`, creating the mapping and filter permission; `nil`
    /// when UDP is blocked.
    public func outbound(from internalAddress: STUNAddress, to destination: STUNAddress) -> STUNAddress? {
        guard kind != .udpBlocked else { return nil }
        if mappedFlows[internalAddress]?.contains(destination) == true,
           let port = portMappings.first(where: { $0.value == internalAddress })?.key {
            return STUNAddress(ip: publicIP, port: port)
        }
        let key: MappingKey
        switch kind.mapping {
        case .endpointIndependent: key = MappingKey(internalAddress: internalAddress, destinationIP: nil, destinationPort: nil)
        case .addressDependent: key = MappingKey(internalAddress: internalAddress, destinationIP: destination.ip, destinationPort: nil)
        case .addressAndPortDependent:
            key = MappingKey(internalAddress: internalAddress, destinationIP: destination.ip, destinationPort: destination.port)
        }
        let port: UInt16
        if let existing = mappings[key] {
            port = existing
        } else {
            port = newPort()
            mappings[key] = port
            bindings[port] = Binding(internalAddress: internalAddress)
        }
        bindings[port]?.permittedIPs.insert(destination.ip)
        bindings[port]?.permittedAddresses.insert(destination)
        return STUNAddress(ip: publicIP, port: port)
    }

    /// The internal destination of a packet arriving at `publicPort` from
    /// `source`, or `nil` when the filter drops it.
    public func inbound(to publicPort: UInt16, from source: STUNAddress) -> STUNAddress? {
        guard kind != .udpBlocked else { return nil }
        if let internalAddress = portMappings[publicPort] {
            mappedFlows[internalAddress, default: []].insert(source)
            return internalAddress
        }
        guard let binding = bindings[publicPort] else { return nil }
        switch kind.filtering {
        case .endpointIndependent: return binding.internalAddress
        case .addressDependent: return binding.permittedIPs.contains(source.ip) ? binding.internalAddress : nil
        case .addressAndPortDependent: return binding.permittedAddresses.contains(source) ? binding.internalAddress : nil
        }
    }

    /// A port mapping as a router grants it (miniupnpd: a DNAT rule): any
    /// remote may send to `publicPort`, and replies to it leave from there.
    /// The public address.
    @discardableResult
    public func mapPort(_ publicPort: UInt16, to internalAddress: STUNAddress) -> STUNAddress? {
        portMappings[publicPort] = internalAddress
        return STUNAddress(ip: publicIP, port: publicPort)
    }
}

import ChatClient
import STUN

/// NAT mapping behaviour (RFC 4787 §4.1, tested as in RFC 5780 §4.3) from
/// what a STUN server reported for one local socket.
public enum NATBehaviour: String, Sendable, Equatable {
    case none
    case endpointIndependent = "endpoint-independent"
    case addressDependent = "address-dependent"
    case addressAndPortDependent = "address-and-port-dependent"
    case udpBlocked = "udp-blocked"

    /// One sentence on what this means for direct connections.
    public var meaning: String {
        switch self {
        case .none:
            return "This host has a public address: direct connections work with any peer whose network allows UDP."
        case .endpointIndependent:
            return "Your NAT keeps one public port for every destination (endpoint-independent mapping): direct connections work with almost any peer."
        case .addressDependent:
            return "Your NAT picks a new public port for each destination address: direct connections work with peers on open or cone NATs; others need a TURN relay."
        case .addressAndPortDependent:
            return "Your NAT picks a new public port for each destination (a symmetric NAT): direct connections work only with peers that have a public address or an easy NAT; others need a TURN relay."
        case .udpBlocked:
            return "No STUN answer came back: this network seems to block UDP, so chats here need a TURN relay over TCP."
        }
    }
}

/// The RFC 5780 mapping tests as pure logic: the mappings one local socket
/// got from the server's primary address (test I), from a second address
/// (test II: the other IP with the primary port, or — for a server with one
/// IP — the primary IP with the other port) and from the other IP and port
/// (test III, two-IP servers only).
public struct NATClassifier: Sendable {
    public var server: STUNAddress
    /// The server's OTHER-ADDRESS, from test I.
    public var other: STUNAddress?
    public var mappedI: STUNAddress?
    public var mappedII: STUNAddress?
    public var mappedIII: STUNAddress?
    /// The local socket's own addresses (each interface IP with its port).
    public var localAddresses: [STUNAddress] = []

    public init(server: STUNAddress) { self.server = server }

    var serverHasTwoIPs: Bool { other.map { $0.ip != server.ip } ?? false }

    public var targetII: STUNAddress? {
        guard let other else { return nil }
        return serverHasTwoIPs ? STUNAddress(ip: other.ip, port: server.port) : server.with(port: other.port)
    }

    public var targetIII: STUNAddress? { serverHasTwoIPs ? other : nil }

    public var behaviour: NATBehaviour {
        guard let mappedI else { return .udpBlocked }
        if localAddresses.contains(mappedI) { return .none }
        guard let mappedII, mappedII != mappedI else { return .endpointIndependent }
        // With one server IP only the port varied, and the mapping changed with it.
        guard serverHasTwoIPs, let mappedIII else { return .addressAndPortDependent }
        return mappedIII == mappedII ? .addressDependent : .addressAndPortDependent
    }
}

import STUN

/// Candidate types and their RFC 8445 §5.1.2.2 type preferences.
public enum ICECandidateType: String, Hashable, Sendable, CaseIterable {
    case host
    case srflx
    case prflx
    case relay

    var typePreference: UInt32 {
        switch self {
        case .host: 126
        case .prflx: 110
        case .srflx: 100
        case .relay: 0
        }
    }
}

/// One ICE candidate as carried in an SDP `a=candidate` attribute
/// (RFC 8839 §5.1), plus the extension attributes browsers add
/// (`generation`, `ufrag`, `network-id`, `network-cost`), kept in order so
/// a parsed candidate prints back exactly as it came.
///
/// `connectionAddress` is the text from the SDP: an IP literal, or a
/// hostname such as a browser's mDNS `….local` name, which this agent does
/// not resolve (`address` is then `nil` and the candidate is never checked).
public struct ICECandidate: Hashable, Sendable, CustomStringConvertible {
    /// An `extension-att-name extension-att-value` pair.
    public struct Extension: Hashable, Sendable {
        public let name: String
        public let value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public var foundation: String
    public var component: UInt16
    /// As written (`udp`, `UDP`, `tcp`); compare with `isUDP`.
    public var transport: String
    public var priority: UInt32
    public let connectionAddress: String
    public let port: UInt16
    /// The transport address, when `connectionAddress` is an IP literal.
    public let address: STUNAddress?
    public var type: ICECandidateType
    public var relatedAddress: String?
    public var relatedPort: UInt16?
    /// RFC 6544 `tcptype` (active, passive, so) of TCP candidates.
    public var tcpType: String?
    public var extensions: [Extension]

    /// A candidate from parsed SDP fields; `address` is derived from
    /// `connectionAddress` when that is an IP literal.
    public init(
        foundation: String, component: UInt16 = 1, transport: String = "udp", priority: UInt32,
        connectionAddress: String, port: UInt16, type: ICECandidateType,
        relatedAddress: String? = nil, relatedPort: UInt16? = nil, tcpType: String? = nil,
        extensions: [Extension] = []
    ) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.connectionAddress = connectionAddress
        self.port = port
        self.address = IPAddressText.parse(connectionAddress).flatMap { STUNAddress(ip: $0, port: port) }
        self.type = type
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
        self.tcpType = tcpType
        self.extensions = extensions
    }

    /// A UDP candidate of this agent's own.
    init(
        foundation: String, priority: UInt32, address: STUNAddress, type: ICECandidateType,
        related: STUNAddress?, extensions: [Extension]
    ) {
        self.init(
            foundation: foundation, priority: priority, connectionAddress: address.ipDescription,
            port: address.port, type: type, relatedAddress: related?.ipDescription,
            relatedPort: related?.port, extensions: extensions)
    }

    public var isUDP: Bool { transport.lowercased() == "udp" }

    /// A browser's obfuscated host candidate (RFC 8839 draft mDNS names).
    public var isMDNS: Bool { connectionAddress.lowercased().hasSuffix(".local") }

    public func extensionValue(_ name: String) -> String? {
        extensions.first { $0.name == name }?.value
    }

    public var generation: Int? { extensionValue("generation").flatMap { Int($0) } }
    public var ufrag: String? { extensionValue("ufrag") }
    public var networkID: Int? { extensionValue("network-id").flatMap { Int($0) } }
    public var networkCost: Int? { extensionValue("network-cost").flatMap { Int($0) } }

    /// "srflx 203.0.113.10:40000", for logs and the CLI's `local`/`remote`.
    public var summary: String {
        "\(type.rawValue) \(address?.description ?? "\(connectionAddress):\(port)")"
    }

    public var description: String { sdpAttribute }
}

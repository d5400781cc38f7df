/// A DNS-SD service instance (RFC 6763 §4): `<Instance>.<_service>._udp.<domain>`,
/// its port, its TXT `key=value` pairs and the host that offers it.
public struct ServiceInstance: Hashable, Sendable {
    public var instance: String
    /// `_chatcli._udp.local`
    public var serviceType: DNSName
    public var port: UInt16
    public var txt: [String: String]

    public init(instance: String, serviceType: DNSName, port: UInt16, txt: [String: String]) {
        self.instance = instance
        self.serviceType = serviceType
        self.port = port
        self.txt = txt
    }

    public var name: DNSName? { DNSName(instance: instance, in: serviceType) }

    /// The TXT strings, keys sorted (RFC 6763 §6.4: keys are ASCII, case-insensitive).
    var txtStrings: [[UInt8]] {
        txt.keys.sorted().map { Array("\($0)=\(txt[$0] ?? "")".utf8) }
    }

    /// `key=value` strings as a dictionary; the first of a repeated key wins
    /// (RFC 6763 §6.4); strings without `=` are keys with an empty value.
    public static func parseTXT(_ strings: [[UInt8]]) -> [String: String] {
        var result: [String: String] = [:]
        for string in strings {
            let text = String(decoding: string, as: UTF8.self)
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = parts.first.map({ $0.lowercased() }), !key.isEmpty, result[key] == nil else { continue }
            result[key] = parts.count > 1 ? String(parts[1]) : ""
        }
        return result
    }

    /// `_services._dns-sd._udp.local`, the service type enumeration name (RFC 6763 §9).
    public static let enumerationName = DNSName("_services._dns-sd._udp.local")!
}

/// A service as a querier resolved it: instance, port, TXT, and the host's
/// addresses (4 or 16 bytes each) heard on one interface.
public struct ResolvedService: Hashable, Sendable {
    public var name: DNSName
    public var instance: String
    public var host: DNSName
    public var port: UInt16
    public var txt: [String: String]
    public var addresses: [[UInt8]]
}

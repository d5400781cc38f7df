/// Resource record types used by DNS-SD over mDNS (RFC 1035, 2782, 3596, 4034).
public struct DNSRecordType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let a = DNSRecordType(rawValue: 1)
    public static let ptr = DNSRecordType(rawValue: 12)
    public static let txt = DNSRecordType(rawValue: 16)
    public static let aaaa = DNSRecordType(rawValue: 28)
    public static let srv = DNSRecordType(rawValue: 33)
    public static let nsec = DNSRecordType(rawValue: 47)
    /// Only in questions: every type.
    public static let any = DNSRecordType(rawValue: 255)

    public var description: String {
        switch self {
        case .a: return "A"
        case .ptr: return "PTR"
        case .txt: return "TXT"
        case .aaaa: return "AAAA"
        case .srv: return "SRV"
        case .nsec: return "NSEC"
        case .any: return "ANY"
        default: return "TYPE\(rawValue)"
        }
    }

    /// Whether a question of type `self` asks for records of `type`.
    func matches(_ type: DNSRecordType) -> Bool { self == .any || self == type }
}

/// The class IN; mDNS uses its top bit as the cache-flush bit in records
/// and the unicast-response bit in questions (RFC 6762 §10.2, §5.4).
public enum DNSClass {
    public static let internet: UInt16 = 1
    public static let any: UInt16 = 255
    public static let topBit: UInt16 = 0x8000
}

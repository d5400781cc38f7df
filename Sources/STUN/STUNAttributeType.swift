/// A 16-bit attribute type from the IANA "STUN Attributes" registry.
///
/// Types below 0x8000 are comprehension-required: an agent that does not
/// understand one must reject the message (a server answers 420 with
/// UNKNOWN-ATTRIBUTES, RFC 8489 §6.3.1); types from 0x8000 are
/// comprehension-optional and may be ignored.
public struct STUNAttributeType: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public var isComprehensionRequired: Bool { rawValue < 0x8000 }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    // RFC 8489 §18.3
    public static let mappedAddress = Self(rawValue: 0x0001)
    public static let username = Self(rawValue: 0x0006)
    public static let messageIntegrity = Self(rawValue: 0x0008)
    public static let errorCode = Self(rawValue: 0x0009)
    public static let unknownAttributes = Self(rawValue: 0x000A)
    public static let realm = Self(rawValue: 0x0014)
    public static let nonce = Self(rawValue: 0x0015)
    public static let messageIntegritySHA256 = Self(rawValue: 0x001C)
    public static let passwordAlgorithm = Self(rawValue: 0x001D)
    public static let userHash = Self(rawValue: 0x001E)
    public static let xorMappedAddress = Self(rawValue: 0x0020)
    public static let passwordAlgorithms = Self(rawValue: 0x8002)
    public static let alternateDomain = Self(rawValue: 0x8003)
    public static let software = Self(rawValue: 0x8022)
    public static let alternateServer = Self(rawValue: 0x8023)
    public static let fingerprint = Self(rawValue: 0x8028)

    // RFC 5780 §7
    public static let changeRequest = Self(rawValue: 0x0003)
    public static let padding = Self(rawValue: 0x0026)
    public static let responsePort = Self(rawValue: 0x0027)
    public static let responseOrigin = Self(rawValue: 0x802B)
    public static let otherAddress = Self(rawValue: 0x802C)

    // RFC 8445 §16.1
    public static let priority = Self(rawValue: 0x0024)
    public static let useCandidate = Self(rawValue: 0x0025)
    public static let iceControlled = Self(rawValue: 0x8029)
    public static let iceControlling = Self(rawValue: 0x802A)

    // RFC 8656 §18
    public static let channelNumber = Self(rawValue: 0x000C)
    public static let lifetime = Self(rawValue: 0x000D)
    public static let xorPeerAddress = Self(rawValue: 0x0012)
    public static let data = Self(rawValue: 0x0013)
    public static let xorRelayedAddress = Self(rawValue: 0x0016)
    public static let requestedAddressFamily = Self(rawValue: 0x0017)
    public static let evenPort = Self(rawValue: 0x0018)
    public static let requestedTransport = Self(rawValue: 0x0019)
    public static let dontFragment = Self(rawValue: 0x001A)
    public static let reservationToken = Self(rawValue: 0x0022)

    /// Types this module decodes into typed `STUNAttribute` cases; anything
    /// else is kept raw as `.other`.
    public static let understood: Set<STUNAttributeType> = [
        .mappedAddress, .username, .messageIntegrity, .errorCode, .unknownAttributes,
        .realm, .nonce, .messageIntegritySHA256, .xorMappedAddress, .software,
        .alternateServer, .fingerprint, .changeRequest, .responseOrigin, .otherAddress,
        .priority, .useCandidate, .iceControlled, .iceControlling, .channelNumber,
        .lifetime, .xorPeerAddress, .data, .xorRelayedAddress, .requestedAddressFamily,
        .evenPort, .requestedTransport, .dontFragment, .reservationToken,
    ]

    public var description: String {
        let hex = String(rawValue, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}

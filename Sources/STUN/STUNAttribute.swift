/// A decoded STUN attribute.
///
/// Addresses in the XOR-*-ADDRESS cases are stored in the clear; the
/// encoder and decoder apply the XOR with the message's transaction id.
/// Attributes this module does not interpret are kept byte-for-byte as
/// `.other` so they can be inspected, forwarded or reported.
public enum STUNAttribute: Hashable, Sendable {
    // RFC 8489
    case mappedAddress(STUNAddress)
    case xorMappedAddress(STUNAddress)
    case username(String)
    /// The 20-byte HMAC-SHA1 as found in a decoded message. To add one when
    /// encoding, pass a key to `STUNMessage.encoded(integrity:)` instead.
    case messageIntegrity([UInt8])
    /// An HMAC-SHA256, possibly truncated to 16...32 bytes (RFC 8489 §14.6).
    case messageIntegritySHA256([UInt8])
    /// The CRC value as found in a decoded message; to add one when
    /// encoding, pass `fingerprint: true` to `STUNMessage.encoded`.
    case fingerprint(UInt32)
    case errorCode(STUNErrorCode)
    case unknownAttributes([STUNAttributeType])
    case realm(String)
    case nonce(String)
    case software(String)
    case alternateServer(STUNAddress)

    // RFC 8445 (ICE)
    case priority(UInt32)
    case useCandidate
    case iceControlled(tieBreaker: UInt64)
    case iceControlling(tieBreaker: UInt64)

    // RFC 5780 (NAT behaviour discovery)
    case otherAddress(STUNAddress)
    case responseOrigin(STUNAddress)
    case changeRequest(changeIP: Bool, changePort: Bool)

    // RFC 8656 (TURN)
    case channelNumber(UInt16)
    /// Allocation lifetime in seconds.
    case lifetime(UInt32)
    case xorPeerAddress(STUNAddress)
    case data([UInt8])
    case xorRelayedAddress(STUNAddress)
    case requestedAddressFamily(STUNAddress.Family)
    case evenPort(reserveNextPort: Bool)
    /// An IANA protocol number; 17 (UDP) is the only one RFC 8656 defines.
    case requestedTransport(UInt8)
    case dontFragment
    case reservationToken(UInt64)

    /// Any attribute without a typed case, value unpadded.
    case other(STUNAttributeType, [UInt8])

    public var type: STUNAttributeType {
        switch self {
        case .mappedAddress: .mappedAddress
        case .xorMappedAddress: .xorMappedAddress
        case .username: .username
        case .messageIntegrity: .messageIntegrity
        case .messageIntegritySHA256: .messageIntegritySHA256
        case .fingerprint: .fingerprint
        case .errorCode: .errorCode
        case .unknownAttributes: .unknownAttributes
        case .realm: .realm
        case .nonce: .nonce
        case .software: .software
        case .alternateServer: .alternateServer
        case .priority: .priority
        case .useCandidate: .useCandidate
        case .iceControlled: .iceControlled
        case .iceControlling: .iceControlling
        case .otherAddress: .otherAddress
        case .responseOrigin: .responseOrigin
        case .changeRequest: .changeRequest
        case .channelNumber: .channelNumber
        case .lifetime: .lifetime
        case .xorPeerAddress: .xorPeerAddress
        case .data: .data
        case .xorRelayedAddress: .xorRelayedAddress
        case .requestedAddressFamily: .requestedAddressFamily
        case .evenPort: .evenPort
        case .requestedTransport: .requestedTransport
        case .dontFragment: .dontFragment
        case .reservationToken: .reservationToken
        case .other(let type, _): type
        }
    }
}

/// The value of an ERROR-CODE attribute (RFC 8489 §14.8): a code from 300
/// to 699 and a human-readable reason phrase.
public struct STUNErrorCode: Hashable, Sendable, CustomStringConvertible {
    /// Encoded as a hundreds "class" (3–6) and a "number" (0–99).
    public let code: Int
    public let reason: String

    /// `nil` when `code` is outside 300...699, which the wire format cannot carry.
    public init?(code: Int, reason: String) {
        guard (300...699).contains(code) else { return nil }
        self.code = code
        self.reason = reason
    }

    /// Codes this module uses itself; always valid, so no optional.
    private init(known code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }

    public static let tryAlternate = STUNErrorCode(known: 300, reason: "Try Alternate")
    public static let badRequest = STUNErrorCode(known: 400, reason: "Bad Request")
    public static let unauthenticated = STUNErrorCode(known: 401, reason: "Unauthenticated")
    public static let forbidden = STUNErrorCode(known: 403, reason: "Forbidden")
    public static let unknownAttribute = STUNErrorCode(known: 420, reason: "Unknown Attribute")
    public static let allocationMismatch = STUNErrorCode(known: 437, reason: "Allocation Mismatch")
    public static let staleNonce = STUNErrorCode(known: 438, reason: "Stale Nonce")
    public static let addressFamilyNotSupported = STUNErrorCode(known: 440, reason: "Address Family not Supported")
    public static let wrongCredentials = STUNErrorCode(known: 441, reason: "Wrong Credentials")
    public static let unsupportedTransportProtocol = STUNErrorCode(known: 442, reason: "Unsupported Transport Protocol")
    public static let peerAddressFamilyMismatch = STUNErrorCode(known: 443, reason: "Peer Address Family Mismatch")
    public static let allocationQuotaReached = STUNErrorCode(known: 486, reason: "Allocation Quota Reached")
    public static let roleConflict = STUNErrorCode(known: 487, reason: "Role Conflict")
    public static let serverError = STUNErrorCode(known: 500, reason: "Server Error")
    public static let insufficientCapacity = STUNErrorCode(known: 508, reason: "Insufficient Capacity")

    public var description: String { "\(code) \(reason)" }
}

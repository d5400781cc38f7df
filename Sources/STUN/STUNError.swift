/// Why bytes could not be decoded as a STUN message.
public enum STUNError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bytes are not a STUN message at all (bad leading bits, magic
    /// cookie or length): a demultiplexer should hand them elsewhere and a
    /// server must not answer.
    case notSTUN
    /// The header is valid but the attributes do not frame into
    /// type-length-value records that exactly fill the message.
    case truncatedAttribute
    /// A known attribute carries a value of the wrong size or content.
    case malformedAttribute(STUNAttributeType)

    public var description: String {
        switch self {
        case .notSTUN: "not a STUN message"
        case .truncatedAttribute: "STUN attributes overrun the message"
        case .malformedAttribute(let type): "malformed STUN attribute \(type)"
        }
    }
}

/// One RESP2 value (the Redis serialization protocol): what a server sends
/// back for a command.
public enum RESPValue: Equatable, Sendable {
    case simple(String)
    case error(String)
    case integer(Int64)
    /// A bulk string; nil is the null bulk string (`$-1`).
    case bulk([UInt8]?)
    /// An array; nil is the null array (`*-1`).
    case array([RESPValue]?)

    /// The text of a simple or bulk string, else nil.
    public var string: String? {
        switch self {
        case .simple(let text): return text
        case .bulk(let bytes?): return String(decoding: bytes, as: UTF8.self)
        default: return nil
        }
    }

    public var integer: Int64? {
        if case .integer(let n) = self { return n }
        return nil
    }

    public var elements: [RESPValue]? {
        if case .array(let items?) = self { return items }
        return nil
    }

    public var isNull: Bool { self == .bulk(nil) || self == .array(nil) }
}

/// A JSON value (RFC 8259). Objects keep their key order so output is stable;
/// lookups take the last value for a repeated key, as JavaScript does.
public enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    /// An integer, written exactly: a `Double` holds integers exactly only
    /// up to 2^53, and a file's size may be up to 2^64 − 1.
    case integer(Int128)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    public static func == (a: JSON, b: JSON) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)): return x == y
        case let (.integer(x), .integer(y)): return x == y
        case let (.integer(x), .number(y)), let (.number(y), .integer(x)): return Double(exactly: x) == y
        case let (.string(x), .string(y)): return x == y
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    public subscript(key: String) -> JSON? {
        guard case .object(let members) = self else { return nil }
        return members.last(where: { $0.0 == key })?.1
    }

    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var arrayValue: [JSON]? { if case .array(let a) = self { return a } else { return nil } }
    public var isNull: Bool { if case .null = self { return true } else { return false } }
    public var isObject: Bool { if case .object = self { return true } else { return false } }

    /// The value as an integer, if it is a number with no fractional part.
    public var intValue: Int? {
        if case .integer(let i) = self { return Int(exactly: i) }
        guard case .number(let d) = self, d.isFinite, d.rounded() == d, abs(d) <= 9_007_199_254_740_992 else { return nil }
        return Int(d)
    }

    /// Builds an object from key/value pairs, dropping pairs whose value is nil.
    public static func object(_ pairs: KeyValuePairs<String, JSON?>) -> JSON {
        .object(pairs.compactMap { k, v in v.map { (k, $0) } })
    }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .integer(Int128(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) { self = .object(elements) }
    public init(nilLiteral: ()) { self = .null }
    public init(_ int: Int) { self = .integer(Int128(int)) }
    public init(_ int: UInt64) { self = .integer(Int128(int)) }
}

extension JSON: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .number(value) }
}

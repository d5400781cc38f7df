import Wire

/// A domain name as its labels (RFC 1035 §3.1). Comparison ignores ASCII
/// case, as DNS does; the bytes are kept as received (DNS-SD instance names
/// are UTF-8 and may contain dots and spaces).
public struct DNSName: Hashable, Sendable, CustomStringConvertible {
    public let labels: [[UInt8]]

    /// At most 63 bytes a label and 255 bytes on the wire (RFC 1035 §2.3.4).
    public static let maxLabel = 63
    public static let maxWireLength = 255

    public init?(labels: [[UInt8]]) {
        guard labels.allSatisfy({ !$0.isEmpty && $0.count <= Self.maxLabel }) else { return nil }
        guard labels.reduce(1, { $0 + $1.count + 1 }) <= Self.maxWireLength else { return nil }
        self.labels = labels
    }

    /// A dotted name such as `_chatcli._udp.local` (no escapes: dots split labels).
    public init?(_ dotted: String) {
        let parts = dotted.split(separator: ".", omittingEmptySubsequences: true).map { Array($0.utf8) }
        self.init(labels: parts)
    }

    /// `instance` as one label in front of `parent` (RFC 6763 §4.1).
    public init?(instance: String, in parent: DNSName) {
        self.init(labels: [Array(instance.utf8)] + parent.labels)
    }

    public static let root = DNSName(labels: [])!

    public var wireLength: Int { labels.reduce(1) { $0 + $1.count + 1 } }

    /// The first label as text (an instance name), and the name without it.
    public var firstLabel: String { labels.first.map { String(decoding: $0, as: UTF8.self) } ?? "" }
    public var parent: DNSName? { labels.isEmpty ? nil : DNSName(labels: Array(labels.dropFirst())) }

    /// The labels lower-cased, for comparison and compression.
    var folded: [[UInt8]] { labels.map { $0.map(Self.fold) } }

    static func fold(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte + 32 : byte }

    public static func == (a: DNSName, b: DNSName) -> Bool { a.folded == b.folded }
    public func hash(into hasher: inout Hasher) { hasher.combine(folded) }

    public var description: String {
        labels.isEmpty ? "." : labels.map { String(decoding: $0, as: UTF8.self) }.joined(separator: ".")
    }

    /// The uncompressed, lower-cased wire form (for comparing rdata, RFC 6762 §8.2).
    var canonicalBytes: [UInt8] {
        var out: [UInt8] = []
        for label in folded {
            out.append(UInt8(label.count))
            out.append(contentsOf: label)
        }
        out.append(0)
        return out
    }
}

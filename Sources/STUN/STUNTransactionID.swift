import Wire

/// The 96-bit transaction id that pairs a response with its request
/// (RFC 8489 §5). Stored as two integers so it is cheap to hash and compare.
public struct STUNTransactionID: Hashable, Sendable, CustomStringConvertible {
    private let high: UInt32
    private let low: UInt64

    /// `nil` unless exactly 12 bytes are given.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 12 else { return nil }
        var reader = ByteReader(bytes)
        guard let high = reader.readU32(), let low = reader.readU64() else { return nil }
        self.high = high
        self.low = low
    }

    public init(high: UInt32, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A fresh id. RFC 8489 §5 asks for it to be uniformly random so that
    /// off-path attackers cannot forge responses: pass a cryptographic
    /// generator (`SystemRandomNumberGenerator`) outside tests.
    public static func random(using generator: inout some RandomNumberGenerator) -> STUNTransactionID {
        STUNTransactionID(high: generator.next(), low: generator.next())
    }

    public var bytes: [UInt8] {
        var writer = ByteWriter(capacity: 12)
        writer.writeU32(high)
        writer.writeU64(low)
        return writer.bytes
    }

    public var description: String { Hex.encode(bytes) }
}

/// Appends network-order integers and bytes to a growing buffer.
public struct ByteWriter {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public var count: Int { bytes.count }

    public mutating func writeU8(_ v: UInt8) { bytes.append(v) }

    public mutating func writeU16(_ v: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
        bytes.append(UInt8(truncatingIfNeeded: v))
    }

    public mutating func writeU32(_ v: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: v >> UInt32(shift))) }
    }

    public mutating func writeU64(_ v: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: v >> UInt64(shift))) }
    }

    public mutating func write<S: Sequence>(_ s: S) where S.Element == UInt8 { bytes.append(contentsOf: s) }

    public mutating func write(_ s: String) { bytes.append(contentsOf: s.utf8) }

    public mutating func pad(to multiple: Int, with byte: UInt8 = 0) {
        while bytes.count % multiple != 0 { bytes.append(byte) }
    }

    /// Overwrites a big-endian UInt16 already written at `index`.
    public mutating func setU16(_ v: UInt16, at index: Int) {
        bytes[index] = UInt8(truncatingIfNeeded: v >> 8)
        bytes[index + 1] = UInt8(truncatingIfNeeded: v)
    }

    public mutating func setU32(_ v: UInt32, at index: Int) {
        for i in 0..<4 { bytes[index + i] = UInt8(truncatingIfNeeded: v >> UInt32(24 - 8 * i)) }
    }
}

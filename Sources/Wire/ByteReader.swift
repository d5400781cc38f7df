/// A bounds-checked cursor over received bytes. Every read either returns a
/// value or `nil`/throws; it never indexes out of range, so decoders built on
/// it cannot crash on truncated or hostile input.
public struct ByteReader {
    public let bytes: [UInt8]
    public private(set) var offset: Int
    public let end: Int

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.offset = 0
        self.end = bytes.count
    }

    public init(_ bytes: [UInt8], range: Range<Int>) {
        self.bytes = bytes
        self.offset = max(0, min(range.lowerBound, bytes.count))
        self.end = max(offset, min(range.upperBound, bytes.count))
    }

    public var remaining: Int { end - offset }
    public var isAtEnd: Bool { offset >= end }

    public mutating func readU8() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    public mutating func readU16() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    public mutating func readU32() -> UInt32? {
        guard remaining >= 4 else { return nil }
        var v: UInt32 = 0
        for i in 0..<4 { v = v << 8 | UInt32(bytes[offset + i]) }
        offset += 4
        return v
    }

    public mutating func readU64() -> UInt64? {
        guard remaining >= 8 else { return nil }
        var v: UInt64 = 0
        for i in 0..<8 { v = v << 8 | UInt64(bytes[offset + i]) }
        offset += 8
        return v
    }

    public mutating func readBytes(_ count: Int) -> [UInt8]? {
        guard count >= 0, remaining >= count else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// A reader over the next `count` bytes, advancing past them.
    public mutating func readSlice(_ count: Int) -> ByteReader? {
        guard count >= 0, remaining >= count else { return nil }
        defer { offset += count }
        return ByteReader(bytes, range: offset..<offset + count)
    }

    public mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, remaining >= count else { return false }
        offset += count
        return true
    }

    public func peekU8(at delta: Int = 0) -> UInt8? {
        let i = offset + delta
        guard delta >= 0, i < end else { return nil }
        return bytes[i]
    }

    public func rest() -> ArraySlice<UInt8> { bytes[offset..<end] }
}

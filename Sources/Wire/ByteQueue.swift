/// A FIFO of received bytes for incremental decoders.
///
/// Consuming from the front only moves a read index; the storage is compacted
/// when the consumed prefix is large, so feeding and draining stay linear
/// (no repeated `removeFirst(n)`). When drained, a large buffer is released so
/// that thousands of idle connections do not each pin their largest message.
public struct ByteQueue: Sendable {
    public private(set) var storage: [UInt8] = []
    /// Index in `storage` of the first unread byte.
    public private(set) var readIndex = 0

    /// Capacity kept after draining; larger buffers are freed.
    private static let retainedCapacity = 4096

    public init() {}

    public var count: Int { storage.count - readIndex }
    public var isEmpty: Bool { readIndex >= storage.count }

    public mutating func append<C: Collection>(contentsOf bytes: C) where C.Element == UInt8 {
        storage.append(contentsOf: bytes)
    }

    /// The unread byte at `offset` from the front, or nil past the end.
    public subscript(offset: Int) -> UInt8? {
        let i = readIndex + offset
        guard offset >= 0, i < storage.count else { return nil }
        return storage[i]
    }

    /// The offset (from the front) of the first `byte` at or after `from`, or nil.
    public func firstOffset(of byte: UInt8, from: Int = 0) -> Int? {
        var i = readIndex + max(0, from)
        while i < storage.count {
            if storage[i] == byte { return i - readIndex }
            i += 1
        }
        return nil
    }

    /// A copy of the unread bytes in `range` (offsets from the front), clamped.
    public func copy(_ range: Range<Int>) -> [UInt8] {
        let lo = readIndex + max(0, min(range.lowerBound, count))
        let hi = readIndex + max(0, min(range.upperBound, count))
        return lo < hi ? Array(storage[lo..<hi]) : []
    }

    /// Removes and returns the first `n` bytes, or nil (consuming nothing) if fewer are queued.
    public mutating func read(_ n: Int) -> [UInt8]? {
        guard n >= 0, n <= count else { return nil }
        let out = Array(storage[readIndex..<readIndex + n])
        skip(n)
        return out
    }

    /// Moves up to `n` bytes to the end of `out`; returns how many moved.
    @discardableResult
    public mutating func move(upTo n: Int, into out: inout [UInt8]) -> Int {
        let k = max(0, min(n, count))
        if k > 0 { out.append(contentsOf: storage[readIndex..<readIndex + k]) }
        skip(k)
        return k
    }

    /// Drops up to `n` bytes; returns how many were dropped.
    @discardableResult
    public mutating func skip(_ n: Int) -> Int {
        let k = max(0, min(n, count))
        readIndex += k
        compact()
        return k
    }

    /// Removes and returns everything unread.
    public mutating func takeAll() -> [UInt8] {
        let out = readIndex == 0 ? storage : Array(storage[readIndex...])
        storage = []
        readIndex = 0
        return out
    }

    private mutating func compact() {
        if readIndex >= storage.count {
            if storage.capacity > Self.retainedCapacity {
                storage = []
            } else {
                storage.removeAll(keepingCapacity: true)
            }
            readIndex = 0
        } else if readIndex >= Self.retainedCapacity, readIndex * 2 >= storage.count {
            storage.removeSubrange(0..<readIndex)
            readIndex = 0
        }
    }
}

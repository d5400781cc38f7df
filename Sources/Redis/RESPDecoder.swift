/// Why the bytes from the server are not RESP; the connection is then closed.
public struct RESPProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// An incremental, sans-IO RESP2 decoder: `feed` bytes as they arrive,
/// `next()` yields each complete value in order.
///
/// The server is trusted more than a client, but its bytes are still parsed
/// defensively: lengths are bounded, nesting is bounded, and a malformed
/// value is an error, never a trap. Parsing restarts from the first byte of
/// an incomplete value, so the cost of a value split over many reads is
/// O(reads × value size); replies here are small.
public struct RESPDecoder: Sendable {
    public static let maxBulkBytes = 16 * 1024 * 1024
    public static let maxElements = 1 << 20
    public static let maxDepth = 8
    static let maxLineBytes = 64 * 1024

    private var buffer: [UInt8] = []
    private var start = 0

    public init() {}

    public mutating func feed(_ bytes: [UInt8]) {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete value, nil if more bytes are needed.
    public mutating func next() throws(RESPProtocolError) -> RESPValue? {
        var index = start
        guard let value = try parse(&index, depth: 0) else { return nil }
        start = index
        if start > 4096 && start * 2 > buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        return value
    }

    /// Bytes received but not yet decoded.
    public var bufferedBytes: Int { buffer.count - start }

    private func parse(_ index: inout Int, depth: Int) throws(RESPProtocolError) -> RESPValue? {
        guard depth <= Self.maxDepth else { throw RESPProtocolError("RESP nesting deeper than \(Self.maxDepth)") }
        guard index < buffer.count else { return nil }
        let kind = buffer[index]
        var cursor = index + 1
        guard let line = try self.line(&cursor) else { return nil }
        switch kind {
        case UInt8(ascii: "+"):
            index = cursor
            return .simple(String(decoding: line, as: UTF8.self))
        case UInt8(ascii: "-"):
            index = cursor
            return .error(String(decoding: line, as: UTF8.self))
        case UInt8(ascii: ":"):
            index = cursor
            return .integer(try Self.number(line))
        case UInt8(ascii: "$"):
            let length = try Self.number(line)
            if length == -1 {
                index = cursor
                return .bulk(nil)
            }
            guard length >= 0, length <= Self.maxBulkBytes else { throw RESPProtocolError("bulk string length \(length) out of range") }
            let end = cursor + Int(length)
            guard end + 2 <= buffer.count else { return nil }
            guard buffer[end] == 0x0D, buffer[end + 1] == 0x0A else { throw RESPProtocolError("bulk string not followed by CRLF") }
            index = end + 2
            return .bulk(Array(buffer[cursor..<end]))
        case UInt8(ascii: "*"):
            let count = try Self.number(line)
            if count == -1 {
                index = cursor
                return .array(nil)
            }
            guard count >= 0, count <= Self.maxElements else { throw RESPProtocolError("array length \(count) out of range") }
            var items: [RESPValue] = []
            items.reserveCapacity(Int(min(count, 1024)))
            for _ in 0..<count {
                guard let item = try parse(&cursor, depth: depth + 1) else { return nil }
                items.append(item)
            }
            index = cursor
            return .array(items)
        default:
            throw RESPProtocolError("unknown RESP type byte \(kind)")
        }
    }

    /// The bytes up to the next CRLF (cursor moves past it), nil if incomplete.
    private func line(_ cursor: inout Int) throws(RESPProtocolError) -> ArraySlice<UInt8>? {
        var i = cursor
        while i + 1 < buffer.count {
            if buffer[i] == 0x0D {
                guard buffer[i + 1] == 0x0A else { throw RESPProtocolError("CR without LF") }
                let line = buffer[cursor..<i]
                cursor = i + 2
                return line
            }
            if i - cursor > Self.maxLineBytes { throw RESPProtocolError("RESP line longer than \(Self.maxLineBytes) bytes") }
            i += 1
        }
        if buffer.count - cursor > Self.maxLineBytes { throw RESPProtocolError("RESP line longer than \(Self.maxLineBytes) bytes") }
        return nil
    }

    private static func number(_ line: ArraySlice<UInt8>) throws(RESPProtocolError) -> Int64 {
        guard !line.isEmpty, line.count <= 20, let n = Int64(String(decoding: line, as: UTF8.self)) else {
            throw RESPProtocolError("not a RESP integer")
        }
        return n
    }
}

import Wire

/// How a message body is delimited (RFC 9112 §6.3).
enum HTTPFraming: Equatable, Sendable {
    case none
    case contentLength(Int)
    case chunked
    /// Response bodies without a length end when the connection closes.
    case untilClose
}

/// Reads a message body from a `ByteQueue` as bytes arrive: fixed-length,
/// chunked (extensions ignored, trailers parsed and dropped) or close-delimited.
struct HTTPBodyDecoder: Sendable {
    private enum State: Sendable {
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers(size: Int)
        case untilClose
        case done
    }

    private var state: State
    private var total = 0
    /// How far the current line has been searched for its LF, so a line that
    /// trickles in byte by byte is not rescanned from its start each time.
    private var lineScanned = 0
    private let maxBody: Int
    private let maxTrailers: Int
    /// A chunk-size line longer than this is treated as an attack, not buffered.
    private static let maxChunkLine = 4096

    init(framing: HTTPFraming, maxBody: Int, maxTrailers: Int) {
        self.maxBody = maxBody
        self.maxTrailers = maxTrailers
        switch framing {
        case .none: state = .done
        case .contentLength(let n): state = n == 0 ? .done : .fixed(remaining: n)
        case .chunked: state = .chunkSize
        case .untilClose: state = .untilClose
        }
    }

    var isDone: Bool { if case .done = state { return true } else { return false } }

    /// Moves body bytes from `queue` to `body`; returns true once the body is complete.
    mutating func decode(_ queue: inout ByteQueue, into body: inout [UInt8], atEOF: Bool) throws(HTTPParseError) -> Bool {
        while true {
            switch state {
            case .done:
                return true
            case .fixed(let remaining):
                let n = queue.move(upTo: remaining, into: &body)
                if n == remaining { state = .done; return true }
                state = .fixed(remaining: remaining - n)
                if atEOF { throw .unexpectedEnd }
                return false
            case .untilClose:
                total += queue.move(upTo: queue.count, into: &body)
                guard total <= maxBody else { throw .bodyTooLarge(declared: nil) }
                if atEOF { state = .done; return true }
                return false
            case .chunkSize:
                guard let line = try takeLine(&queue, limit: Self.maxChunkLine, error: .invalidChunk) else {
                    if atEOF { throw .unexpectedEnd }
                    return false
                }
                let size = try Self.chunkSize(line)
                guard size <= maxBody - total else { throw .bodyTooLarge(declared: nil) }
                state = size == 0 ? .trailers(size: 0) : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let n = queue.move(upTo: remaining, into: &body)
                total += n
                if n < remaining {
                    state = .chunkData(remaining: remaining - n)
                    if atEOF { throw .unexpectedEnd }
                    return false
                }
                state = .chunkDataEnd
            case .chunkDataEnd:
                guard let line = try takeLine(&queue, limit: 2, error: .invalidChunk) else {
                    if atEOF { throw .unexpectedEnd }
                    return false
                }
                guard line.isEmpty else { throw .invalidChunk }
                state = .chunkSize
            case .trailers(let size):
                let room = maxTrailers - size
                guard let line = try takeLine(&queue, limit: room, error: .headersTooLarge) else {
                    if atEOF { throw .unexpectedEnd }
                    return false
                }
                if line.isEmpty { state = .done; return true }
                if let f = line.first, HTTPSyntax.isWhitespace(f) { throw .obsoleteLineFolding }
                // Trailers are validated but dropped: nothing here needs them, and
                // merging them into the header section is optional (RFC 9112 §7.1.2).
                _ = try HTTPSyntax.fieldLine(line[...])
                state = .trailers(size: size + line.count + 2)
            }
        }
    }

    /// Removes one line (without its CRLF or bare LF) if it has fully arrived
    /// and is at most `limit` bytes including the terminator.
    private mutating func takeLine(_ queue: inout ByteQueue, limit: Int, error: HTTPParseError) throws(HTTPParseError) -> [UInt8]? {
        guard let lf = queue.firstOffset(of: HTTPSyntax.lf, from: lineScanned) else {
            if queue.count >= limit { throw error }
            lineScanned = queue.count
            return nil
        }
        lineScanned = 0
        guard lf < limit else { throw error }
        var line = queue.read(lf + 1) ?? []
        line.removeLast()
        if line.last == HTTPSyntax.cr { line.removeLast() }
        guard !line.contains(HTTPSyntax.cr) else { throw error == .headersTooLarge ? .invalidHeaderValue : error }
        return line
    }

    /// chunk-size [ BWS ";" chunk-ext ]: the hex size; extensions are skipped.
    static func chunkSize(_ line: [UInt8]) throws(HTTPParseError) -> Int {
        var size = 0
        var i = 0
        while i < line.count, let d = hexValue(line[i]) {
            // 15 hex digits already exceed any body limit; more would overflow.
            guard i < 15 else { throw .invalidChunk }
            size = size << 4 | d
            i += 1
        }
        guard i > 0 else { throw .invalidChunk }
        while i < line.count, HTTPSyntax.isWhitespace(line[i]) { i += 1 }
        guard i == line.count || line[i] == UInt8(ascii: ";") else { throw .invalidChunk }
        guard line[i...].allSatisfy(HTTPSyntax.isFieldValueChar) else { throw .invalidChunk }
        return size
    }

    private static func hexValue(_ c: UInt8) -> Int? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(c - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(c - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(c - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }
}

import Wire

/// Finds the end of a start line plus header section in a `ByteQueue`
/// incrementally: each byte is examined once, however the head is split
/// across reads, and the size limit is enforced before the head is complete.
struct HTTPHeadScanner: Sendable {
    let limit: Int
    /// Offset (from the queue front) of the first byte not yet examined.
    private var scanned = 0
    /// Offset where the current line starts.
    private var lineStart = 0

    init(limit: Int) { self.limit = limit }

    /// Skips empty lines before a start line (RFC 9112 §2.2: a server SHOULD
    /// ignore at least one CRLF before the request-line, e.g. after a POST body).
    /// Returns false when it needs more bytes to decide.
    static func skipLeadingEmptyLines(_ queue: inout ByteQueue) -> Bool {
        while let b = queue[0] {
            if b == HTTPSyntax.lf {
                queue.skip(1)
            } else if b == HTTPSyntax.cr {
                guard let next = queue[1] else { return false }
                guard next == HTTPSyntax.lf else { return true }
                queue.skip(2)
            } else {
                return true
            }
        }
        return true
    }

    /// The length of the head (through its terminating empty line) once it
    /// has fully arrived, else nil.
    mutating func headLength(in queue: ByteQueue) throws(HTTPParseError) -> Int? {
        while let lf = queue.firstOffset(of: HTTPSyntax.lf, from: scanned) {
            let end = lf + 1
            guard end <= limit else { throw .headersTooLarge }
            let lineLength = lf - lineStart
            let isEmpty = lineLength == 0 || (lineLength == 1 && queue[lineStart] == HTTPSyntax.cr)
            scanned = end
            lineStart = end
            // The first line is the start line; an empty line after it ends the head.
            if isEmpty, lf > 0 {
                reset()
                return end
            }
        }
        scanned = queue.count
        guard queue.count <= limit else { throw .headersTooLarge }
        return nil
    }

    mutating func reset() {
        scanned = 0
        lineStart = 0
    }
}

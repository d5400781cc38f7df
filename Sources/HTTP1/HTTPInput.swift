import Wire

/// What the request and response parsers share: their limits, the bytes
/// received and not yet consumed, and the scan for the end of the next
/// message head.
struct HTTPInput: Sendable {
    let maxHeadSize: Int
    let maxBodySize: Int
    var queue = ByteQueue()
    private var scanner: HTTPHeadScanner

    init(maxHeadSize: Int, maxBodySize: Int) {
        self.maxHeadSize = maxHeadSize
        self.maxBodySize = maxBodySize
        scanner = HTTPHeadScanner(limit: maxHeadSize)
    }

    mutating func feed<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        queue.append(contentsOf: bytes)
    }

    /// The lines of the next complete head (start line first, the empty
    /// line last), empty lines before it skipped; nil until all of it has
    /// arrived. Throws `.headersTooLarge` past `maxHeadSize`.
    mutating func nextHead() throws(HTTPParseError) -> [ArraySlice<UInt8>]? {
        guard HTTPHeadScanner.skipLeadingEmptyLines(&queue), let length = try scanner.headLength(in: queue) else {
            return nil
        }
        let head = queue.read(length) ?? []
        return HTTPSyntax.lines(head, 0..<head.count)
    }
}

import HTTP1

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

/// Feeds `input` in one piece and collects every request.
func parseAll(_ input: [UInt8], parser: HTTPRequestParser = HTTPRequestParser()) throws(HTTPParseError) -> [HTTPRequest] {
    var parser = parser
    parser.feed(input)
    var out: [HTTPRequest] = []
    while let r = try parser.next() { out.append(r) }
    return out
}

/// Feeds `input` one byte at a time, draining after each byte.
func parseBytewise(_ input: [UInt8], parser: HTTPRequestParser = HTTPRequestParser()) throws(HTTPParseError) -> [HTTPRequest] {
    var parser = parser
    var out: [HTTPRequest] = []
    for b in input {
        parser.feed([b])
        while let r = try parser.next() { out.append(r) }
    }
    return out
}

/// The error `body` throws, or nil.
func parseError(_ body: () throws -> Void) -> HTTPParseError? {
    do { try body() } catch let error as HTTPParseError { return error } catch { return nil }
    return nil
}

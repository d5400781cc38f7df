import HTTP1

/// Deterministic SplitMix64 so fuzz failures reproduce.
struct SeededRNG: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

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

import Redis
import TestSupport
import Testing

private func decodeAll(_ bytes: [UInt8], chunk: Int = .max) throws -> [RESPValue] {
    var decoder = RESPDecoder()
    var values: [RESPValue] = []
    var index = 0
    while index < bytes.count {
        let end = min(bytes.count, index + chunk)
        decoder.feed(Array(bytes[index..<end]))
        index = end
        while let value = try decoder.next() { values.append(value) }
    }
    return values
}

@Test func decodesEveryRESP2Type() throws {
    let wire = Array("+OK\r\n-ERR wrong\r\n:42\r\n:-7\r\n$5\r\nhello\r\n$0\r\n\r\n$-1\r\n*-1\r\n*2\r\n$1\r\na\r\n*1\r\n:1\r\n".utf8)
    #expect(try decodeAll(wire) == [
        .simple("OK"), .error("ERR wrong"), .integer(42), .integer(-7), .bulk(Array("hello".utf8)), .bulk([]),
        .bulk(nil), .array(nil), .array([.bulk(Array("a".utf8)), .array([.integer(1)])]),
    ])
}

@Test func valuesSplitAtEveryByteDecodeTheSame() throws {
    let value = RESPValue.array([.bulk(Array("line\r\nwith CRLF inside".utf8)), .integer(123_456_789), .simple("PONG"), .bulk(nil)])
    let wire = RESPEncoder.value(value) + RESPEncoder.value(.simple("next"))
    for chunk in 1...wire.count {
        #expect(try decodeAll(wire, chunk: chunk) == [value, .simple("next")])
    }
}

@Test func bulkStringsAreBinarySafe() throws {
    let bytes = (0...255).map(UInt8.init)
    #expect(try decodeAll(RESPEncoder.value(.bulk(bytes))) == [.bulk(bytes)])
}

@Test func commandsAreArraysOfBulkStrings() {
    #expect(RESPEncoder.command(["SET", "k", "v w"]) == Array("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\nv w\r\n".utf8))
}

@Test func malformedRepliesAreErrorsNotTraps() {
    let bad = [
        "?what\r\n", "$abc\r\n", "$-2\r\n", "*-5\r\n", ":\r\n", "$3\r\nabcXY", "+OK\rX", "$99999999999\r\n",
        ":99999999999999999999999\r\n",
    ]
    for text in bad {
        var decoder = RESPDecoder()
        decoder.feed(Array(text.utf8))
        #expect(throws: RESPProtocolError.self, "\(text.debugDescription)") { _ = try decoder.next() }
    }
}

@Test func nestingAndSizesAreBounded() {
    var decoder = RESPDecoder()
    decoder.feed(Array(String(repeating: "*1\r\n", count: 20).utf8) + Array(":1\r\n".utf8))
    #expect(throws: RESPProtocolError.self) { _ = try decoder.next() }
    var long = RESPDecoder()
    long.feed([UInt8(ascii: "+")] + [UInt8](repeating: 0x41, count: 70_000))
    #expect(throws: RESPProtocolError.self) { _ = try long.next() }
}

/// Seeded fuzz: random bytes, and valid replies truncated or with bytes
/// flipped, never trap and never loop; a truncated valid reply is just
/// "need more", and the rest of it completes it.
@Test func fuzzedRepliesNeverCrashTheDecoder() throws {
    var rng = SeededRandom(seed: 0x5EED)
    let alphabet = Array("+-:$*\r\n0123456789-abcOK".utf8) + [0, 0xFF]
    let samples: [RESPValue] = [
        .array([.bulk(Array("1700000000000-0".utf8)), .array([.bulk(Array("to".utf8)), .bulk(Array("42".utf8))])]),
        .array([.simple("ok"), .integer(-1), .bulk(nil), .array(nil), .array([])]),
        .error("NOSCRIPT No matching script"),
    ]
    for i in 0..<20_000 {
        var decoder = RESPDecoder()
        let sample = samples[i % samples.count]
        let wire = RESPEncoder.value(sample)
        switch i % 3 {
        case 0:
            let cut = Int.random(in: 0..<wire.count, using: &rng)
            decoder.feed(Array(wire.prefix(cut)))
            #expect(try decoder.next() == nil)
            decoder.feed(Array(wire.dropFirst(cut)))
            #expect(try decoder.next() == sample)
        case 1:
            var bytes = wire
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = alphabet.randomElement(using: &rng) ?? 0
            }
            decoder.feed(bytes)
            for _ in 0..<bytes.count { if (try? decoder.next()) == nil { break } }
        default:
            decoder.feed((0..<Int.random(in: 0...48, using: &rng)).map { _ in alphabet.randomElement(using: &rng) ?? 0 })
            for _ in 0..<64 { if (try? decoder.next()) == nil { break } }
        }
    }
}

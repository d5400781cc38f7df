import TestSupport
import Testing
import WebSocket
import Wire

/// Frames a fuzzer mutates: valid ones of every kind, both maskings.
private func seeds() -> [[UInt8]] {
    var out: [[UInt8]] = []
    for mask: UInt32? in [nil, 0x37FA_213D] {
        out.append(WebSocketFrame(opcode: .text, maskKey: mask, payload: Array("Hello €".utf8)).encoded())
        out.append(WebSocketFrame(fin: false, opcode: .text, maskKey: mask, payload: [0xE2]).encoded()
            + WebSocketFrame(opcode: .continuation, maskKey: mask, payload: [0x82, 0xAC]).encoded())
        out.append(WebSocketFrame(opcode: .binary, maskKey: mask, payload: [UInt8](repeating: 7, count: 300)).encoded())
        out.append(WebSocketFrame(opcode: .ping, maskKey: mask, payload: [1, 2]).encoded())
        out.append(WebSocketFrame(opcode: .close, maskKey: mask, payload: [0x03, 0xE8, 0x41]).encoded())
    }
    return out
}

private func exercise(_ input: [UInt8], rng: inout SeededRandom) {
    var server = WebSocketConnection.server(maxMessageSize: 256)
    var client = WebSocketConnection.client(maxMessageSize: 256, oversizedMessagePolicy: .close, maskKeys: { 1 })
    var decoder = WebSocketFrameDecoder(maxPayloadSize: 512)
    var i = 0
    var decoderFailed = false
    while i < input.count {
        let n = Int.random(in: 1...16, using: &rng)
        let piece = input[i..<min(input.count, i + n)]
        i += n
        _ = server.feed(piece)
        _ = client.feed(piece)
        _ = server.pollTransmit()
        _ = client.pollTransmit()
        decoder.feed(piece)
        do { while !decoderFailed, try decoder.next() != nil {} } catch { decoderFailed = true }
    }
}

@Test func randomBytesNeverCrashTheCodec() {
    var rng = SeededRandom(seed: 6455)
    for _ in 0..<4000 {
        let input = (0..<Int.random(in: 0...200, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        exercise(input, rng: &rng)
    }
}

@Test func truncatedAndMutatedFramesNeverCrashTheCodec() {
    var rng = SeededRandom(seed: 1)
    let corpus = seeds()
    for _ in 0..<4000 {
        var input: [UInt8] = []
        for _ in 0..<Int.random(in: 1...4, using: &rng) { input += corpus[Int.random(in: 0..<corpus.count, using: &rng)] }
        for _ in 0..<Int.random(in: 0...3, using: &rng) where !input.isEmpty {
            input[Int.random(in: 0..<input.count, using: &rng)] ^= UInt8(1) << UInt8.random(in: 0...7, using: &rng)
        }
        exercise(Array(input.prefix(Int.random(in: 0...input.count, using: &rng))), rng: &rng)
    }
}

@Test func validStreamsGiveTheSameEventsHoweverTheyAreSplit() {
    var rng = SeededRandom(seed: 99)
    let input = seeds().filter { $0[1] & 0x80 != 0 }.reduce([], +)
    var whole = WebSocketConnection.server()
    let expected = whole.feed(input)
    #expect(expected.count >= 4)
    for _ in 0..<200 {
        var split = WebSocketConnection.server()
        var events: [WebSocketEvent] = []
        var i = 0
        while i < input.count {
            let n = Int.random(in: 1...7, using: &rng)
            events += split.feed(input[i..<min(input.count, i + n)])
            i += n
        }
        #expect(events == expected)
    }
}

@Test func base64RoundTripsRandomBytesAndRejectsJunkWithoutCrashing() {
    var rng = SeededRandom(seed: 4648)
    for _ in 0..<3000 {
        let raw = (0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        #expect(Base64.decode(Base64.encode(raw)) == raw)
        let junk = String(decoding: raw.map { $0 & 0x7F }, as: UTF8.self)
        _ = Base64.decode(junk)
    }
}

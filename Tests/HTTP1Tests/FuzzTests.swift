import TestSupport
import HTTP1
import Testing

private let corpus: [[UInt8]] = [
    bytes("GET /a?b=c HTTP/1.1\r\nHost: h\r\nConnection: keep-alive\r\n\r\n"),
    bytes("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello"),
    bytes("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4;a=b\r\nWiki\r\n0\r\nT: 1\r\n\r\n"),
    bytes("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc"),
    bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n"),
    bytes("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n\u{81}\u{0}"),
]

/// Runs both parsers over `input`, fed in random pieces, to completion or error.
private func exercise(_ input: [UInt8], rng: inout SeededRandom) {
    var request = HTTPRequestParser(maxHeadSize: 512, maxBodySize: 256)
    var response = HTTPResponseParser(maxHeadSize: 512, maxBodySize: 256)
    var i = 0
    var requestFailed = false
    var responseFailed = false
    while i < input.count {
        let n = Int.random(in: 1...8, using: &rng)
        let piece = input[i..<min(input.count, i + n)]
        i += n
        request.feed(piece)
        response.feed(piece)
        do { while !requestFailed, try request.next() != nil {} } catch { requestFailed = true }
        do { while !responseFailed, try response.next(respondingTo: Bool.random(using: &rng) ? "GET" : "HEAD") != nil {} } catch { responseFailed = true }
    }
    _ = try? response.finish()
    _ = request.takeRemainingBytes()
}

@Test func randomBytesNeverCrashTheParsers() {
    var rng = SeededRandom(seed: 0x4854_5450)
    for _ in 0..<3000 {
        let count = Int.random(in: 0...300, using: &rng)
        let alphabet = bytes("GETPOST HTTP/1.1\r\n:;0123456789abcdefContent-Length Transfer-Encoding chunked\t")
        let input = (0..<count).map { _ in
            Bool.random(using: &rng) ? UInt8.random(in: 0...255, using: &rng) : alphabet[Int.random(in: 0..<alphabet.count, using: &rng)]
        }
        exercise(input, rng: &rng)
    }
}

@Test func truncatedAndMutatedMessagesNeverCrashTheParsers() {
    var rng = SeededRandom(seed: 7)
    for _ in 0..<3000 {
        var input = corpus[Int.random(in: 0..<corpus.count, using: &rng)]
        for _ in 0..<Int.random(in: 0...3, using: &rng) where !input.isEmpty {
            input[Int.random(in: 0..<input.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
        }
        input = Array(input.prefix(Int.random(in: 0...input.count, using: &rng)))
        exercise(input + corpus[Int.random(in: 0..<corpus.count, using: &rng)], rng: &rng)
    }
}

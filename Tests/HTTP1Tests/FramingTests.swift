import HTTP1
import Testing

@Test func chunkedBodyWithExtensionsAndTrailersIsDecoded() throws {
    let input = bytes(
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "4;name=value;flag\r\nWiki\r\n5 ; ext=\"q\"\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0;last\r\nExpires: never\r\nX-T: 1\r\n\r\n"
            + "GET /after HTTP/1.1\r\n\r\n")
    let requests = try parseAll(input)
    #expect(requests.count == 2)
    #expect(requests.first?.body == bytes("Wikipedia in\r\n\r\nchunks."))
    #expect(try parseBytewise(input) == requests)
}

@Test func chunkedAcceptsBareLineFeeds() throws {
    let r = try #require(try parseAll(bytes("POST / HTTP/1.1\nTransfer-Encoding: chunked\n\n2\nab\n0\n\n")).first)
    #expect(r.body == bytes("ab"))
}

@Test func malformedChunksAreRejected() {
    for chunks in ["x\r\n", "2\r\nabc\r\n", "-1\r\n", "2 x\r\nab\r\n", "\r\n", "1000000000000000\r\n"] {
        let error = parseError { _ = try parseAll(bytes("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n\(chunks)0\r\n\r\n")) }
        #expect(error == .invalidChunk, "\(chunks.debugDescription)")
    }
}

@Test func conflictingContentLengthsAreRejected() {
    for headers in ["Content-Length: 1\r\nContent-Length: 2", "Content-Length: 1, 2", "Content-Length: +1",
                    "Content-Length: 0x10", "Content-Length: ", "Content-Length: 1 2", "Content-Length: -1"] {
        let error = parseError { _ = try parseAll(bytes("POST / HTTP/1.1\r\n\(headers)\r\n\r\nab")) }
        #expect(error == .invalidContentLength, "\(headers)")
    }
}

@Test func repeatedIdenticalContentLengthIsAccepted() throws {
    let r = try #require(try parseAll(bytes("POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2, 2\r\n\r\nab")).first)
    #expect(r.body == bytes("ab"))
}

@Test func transferEncodingWithContentLengthIsRejected() {
    let error = parseError {
        _ = try parseAll(bytes("POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"))
    }
    #expect(error == .invalidTransferEncoding)
}

@Test func transferEncodingMustEndWithChunked() {
    #expect(parseError { _ = try parseAll(bytes("POST / HTTP/1.1\r\nTransfer-Encoding: chunked, gzip\r\n\r\n")) } == .invalidTransferEncoding)
    #expect(parseError { _ = try parseAll(bytes("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n")) } == .invalidTransferEncoding)
    #expect(parseError { _ = try parseAll(bytes("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n")) } == .invalidTransferEncoding)
    let gzip = parseError { _ = try parseAll(bytes("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n")) }
    #expect(gzip == .unsupportedTransferCoding)
    #expect(gzip?.status == 501)
}

@Test func headerSectionExactlyAtLimitIsAccepted() throws {
    let start = "GET / HTTP/1.1\r\nX: "
    let filler = String(repeating: "a", count: 16 * 1024 - start.utf8.count - 4)
    let input = bytes(start + filler + "\r\n\r\n")
    #expect(input.count == 16 * 1024)
    #expect(try parseAll(input).count == 1)
    #expect(try parseBytewise(input).count == 1)
}

@Test func headerSectionOneByteOverLimitIs431() {
    let start = "GET / HTTP/1.1\r\nX: "
    let filler = String(repeating: "a", count: 16 * 1024 - start.utf8.count - 3)
    let input = bytes(start + filler + "\r\n\r\n")
    let error = parseError { _ = try parseAll(input) }
    #expect(error == .headersTooLarge)
    #expect(error?.status == 431)
}

@Test func oversizedHeadIsDetectedBeforeItEnds() {
    var parser = HTTPRequestParser()
    parser.feed(bytes("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 17 * 1024)))
    #expect(parseError { _ = try parser.next() } == .headersTooLarge)
}

@Test func bodyExactlyAtLimitIsAccepted() throws {
    let body = [UInt8](repeating: 0x61, count: 64 * 1024)
    let r = try #require(try parseAll(bytes("POST / HTTP/1.1\r\nContent-Length: 65536\r\n\r\n") + body).first)
    #expect(r.body == body)
}

@Test func declaredBodyOverLimitIs413BeforeAnyBodyArrives() {
    var parser = HTTPRequestParser()
    parser.feed(bytes("POST / HTTP/1.1\r\nContent-Length: 65537\r\n\r\n"))
    let error = parseError { _ = try parser.next() }
    #expect(error == .bodyTooLarge(declared: 65537))
    #expect(error?.status == 413)
    #expect(error?.response.headers["Connection"] == "close")
    #expect(error?.response.status == 413)
}

@Test func hugeContentLengthIsTooLargeNotMalformed() {
    let error = parseError { _ = try parseAll(bytes("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n")) }
    #expect(error == .bodyTooLarge(declared: Int.max))
}

@Test func chunkedBodyOverLimitIs413() throws {
    let ok = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n8000\r\n" + String(repeating: "a", count: 0x8000)
        + "\r\n8000\r\n" + String(repeating: "b", count: 0x8000) + "\r\n0\r\n\r\n"
    #expect(try parseAll(bytes(ok)).first?.body.count == 65536)
    var parser = HTTPRequestParser()
    parser.feed(bytes("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n8000\r\n" + String(repeating: "a", count: 0x8000) + "\r\n8001\r\n"))
    #expect(parseError { _ = try parser.next() } == .bodyTooLarge(declared: nil))
}

@Test func bodyLimitIsConfigurable() throws {
    let parser = HTTPRequestParser(maxBodySize: 4)
    #expect(parseError { _ = try parseAll(bytes("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello"), parser: parser) } == .bodyTooLarge(declared: 5))
    #expect(try parseAll(bytes("POST / HTTP/1.1\r\nContent-Length: 4\r\n\r\nhell"), parser: parser).count == 1)
}

@Test func longChunkLinesArrivingByteByByteAreFoundOnce() throws {
    let ext = ";" + String(repeating: "e", count: 4000)
    let input = bytes("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\(ext)\r\na\r\n0\r\nX: \(String(repeating: "t", count: 8000))\r\n\r\n")
    #expect(try parseBytewise(input).first?.body == bytes("a"))
}

@Test func chunkLineOverItsLimitIsRejected() {
    let ext = ";" + String(repeating: "e", count: 5000)
    #expect(parseError { _ = try parseAll(bytes("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\(ext)\r\na\r\n0\r\n\r\n")) } == .invalidChunk)
}

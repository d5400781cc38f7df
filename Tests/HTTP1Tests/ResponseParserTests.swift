import HTTP1
import Testing

private func responses(_ input: [UInt8], method: String = "GET", eof: Bool = false) throws(HTTPParseError) -> [HTTPResponse] {
    var parser = HTTPResponseParser()
    parser.feed(input)
    var out: [HTTPResponse] = []
    while let r = try parser.next(respondingTo: method) { out.append(r) }
    if eof, let r = try parser.finish(respondingTo: method) { out.append(r) }
    return out
}

@Test func parsesResponseWithContentLength() throws {
    let r = try #require(try responses(bytes("HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}")).first)
    #expect(r.status == 201)
    #expect(r.reason == "Created")
    #expect(r.body == bytes("{}"))
}

@Test func responseFedOneByteAtATimeMatches() throws {
    let input = bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\nHTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nz")
    let whole = try responses(input)
    var parser = HTTPResponseParser()
    var split: [HTTPResponse] = []
    for b in input {
        parser.feed([b])
        while let r = try parser.next() { split.append(r) }
    }
    #expect(whole.count == 3)
    #expect(whole == split)
}

@Test func noBodyFor204And304And1xx() throws {
    let input = bytes("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nHTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n")
    let rs = try responses(input)
    #expect(rs.map(\.status) == [100, 204, 304])
    #expect(rs.allSatisfy { $0.body.isEmpty })
}

@Test func headResponseHasNoBodyDespiteContentLength() throws {
    let input = bytes("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n")
    let rs = try responses(input, method: "HEAD")
    #expect(rs.count == 2)
    #expect(rs.allSatisfy { $0.body.isEmpty })
}

@Test func bodyDelimitedByCloseEndsAtFinish() throws {
    var parser = HTTPResponseParser()
    parser.feed(bytes("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nhello "))
    #expect(try parser.next() == nil)
    parser.feed(bytes("world"))
    #expect(try parser.next() == nil)
    #expect(try parser.finish()?.body == bytes("hello world"))
    #expect(try parser.finish() == nil)
}

@Test func truncatedResponseAtCloseIsAnError() throws {
    #expect(parseError { _ = try responses(bytes("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab"), eof: true) } == .unexpectedEnd)
    #expect(parseError { _ = try responses(bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab"), eof: true) } == .unexpectedEnd)
    #expect(parseError { _ = try responses(bytes("HTTP/1.1 200 OK\r\nConte"), eof: true) } == .unexpectedEnd)
    #expect(try responses([], eof: true).isEmpty)
}

@Test func switchingProtocolsHandsOverFollowingBytes() throws {
    var parser = HTTPResponseParser()
    parser.feed(bytes("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n") + [0x81, 0x02, 0x68, 0x69])
    let r = try #require(try parser.next())
    #expect(r.status == 101)
    #expect(parser.isUpgraded)
    #expect(try parser.next() == nil)
    #expect(parser.takeRemainingBytes() == [0x81, 0x02, 0x68, 0x69])
}

@Test func obsoleteLineFoldingIsUnfoldedInResponses() throws {
    let r = try #require(try responses(bytes("HTTP/1.1 200 OK\r\nX: a\r\n  b\r\nContent-Length: 0\r\n\r\n")).first)
    #expect(r.headers["X"] == "a b")
}

@Test func statusLineWithoutReasonIsAccepted() throws {
    #expect(try responses(bytes("HTTP/1.1 404\r\nContent-Length: 0\r\n\r\n")).first?.status == 404)
    #expect(try responses(bytes("HTTP/1.1 404 \r\nContent-Length: 0\r\n\r\n")).first?.reason == "")
}

@Test func badStatusLinesAreRejected() {
    for line in ["HTTP/1.1 20 OK", "HTTP/1.1 2000 OK", "HTTP/1.1 abc OK", "HTTP/1.1", "FTP/1.1 200 OK", "HTTP/1.1 099 x"] {
        #expect(parseError { _ = try responses(bytes(line + "\r\n\r\n")) } == .badStatusLine, "\(line)")
    }
    #expect(parseError { _ = try responses(bytes("HTTP/2.0 200 OK\r\n\r\n")) } == .unsupportedVersion)
}

@Test func responseBodyOverLimitIsRejected() {
    #expect(parseError { _ = try responses(bytes("HTTP/1.1 200 OK\r\nContent-Length: 70000\r\n\r\n")) } == .bodyTooLarge(declared: 70000))
    var parser = HTTPResponseParser(maxBodySize: 3)
    parser.feed(bytes("HTTP/1.1 200 OK\r\n\r\nabcd"))
    #expect(parseError { _ = try parser.next() } == .bodyTooLarge(declared: nil))
}

@Test func whitespaceLineAfterStatusLineIsIgnoredInResponses() throws {
    let r = try #require(try responses(bytes("HTTP/1.1 200 OK\r\n junk\r\nContent-Length: 1\r\n\r\nx")).first)
    #expect(r.body == bytes("x"))
    #expect(r.headers.fields.count == 1)
}

import HTTP1
import Testing

@Test func parsesSimpleGetRequest() throws {
    let requests = try parseAll(bytes("GET /api/rooms/check?wait=25 HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n"))
    #expect(requests.count == 1)
    let r = try #require(requests.first)
    #expect(r.method == "GET")
    #expect(r.target == "/api/rooms/check?wait=25")
    #expect(r.path == "/api/rooms/check")
    #expect(r.query["wait"] == "25")
    #expect(r.headers["host"] == "example.com")
    #expect(r.body.isEmpty)
    #expect(!r.isHTTP10)
    #expect(r.keepAlive)
}

@Test func parsesPostWithContentLengthBody() throws {
    let input = bytes("POST /api/rooms HTTP/1.1\r\nHost: h\r\nContent-Length: 13\r\n\r\n{\"joinid\":\"1\"}")
    let r = try #require(try parseAll(input).first)
    #expect(r.body == bytes("{\"joinid\":\"1\""))
}

@Test func sameRequestsWhenFedOneByteAtATime() throws {
    let input = bytes(
        "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello"
            + "POST /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n2\r\nde\r\n0\r\nT: v\r\n\r\n"
            + "GET /c HTTP/1.0\r\n\r\n")
    let whole = try parseAll(input)
    let split = try parseBytewise(input)
    #expect(whole.count == 3)
    #expect(whole == split)
    #expect(whole.map(\.body) == [bytes("hello"), bytes("abcde"), []])
}

@Test func sameRequestsWhenSplitAtEveryBoundary() throws {
    let input = bytes("PUT /x HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcGET /y HTTP/1.1\r\n\r\n")
    let expected = try parseAll(input)
    for cut in 0...input.count {
        var parser = HTTPRequestParser()
        var got: [HTTPRequest] = []
        parser.feed(input[..<cut])
        while let r = try parser.next() { got.append(r) }
        parser.feed(input[cut...])
        while let r = try parser.next() { got.append(r) }
        #expect(got == expected, "cut at \(cut)")
    }
}

@Test func pipelinedRequestsComeOutInOrder() throws {
    let one = "GET /1 HTTP/1.1\r\nHost: h\r\n\r\n"
    let input = bytes(String(repeating: one, count: 50))
    let requests = try parseAll(input)
    #expect(requests.count == 50)
    #expect(requests.allSatisfy { $0.target == "/1" })
}

@Test func returnsNilUntilTheHeadIsComplete() throws {
    var parser = HTTPRequestParser()
    parser.feed(bytes("GET / HTTP/1.1\r\nHost: h\r\n"))
    #expect(try parser.next() == nil)
    #expect(!parser.isIdle)
    parser.feed(bytes("\r\n"))
    #expect(try parser.next()?.target == "/")
    #expect(parser.isIdle)
}

@Test func bareLineFeedsAreAccepted() throws {
    let r = try #require(try parseAll(bytes("GET / HTTP/1.1\nHost: h\nX: 1\n\n")).first)
    #expect(r.headers["X"] == "1")
}

@Test func leadingEmptyLinesBeforeRequestLineAreIgnored() throws {
    let requests = try parseAll(bytes("\r\n\r\nGET / HTTP/1.1\r\n\r\n"))
    #expect(requests.count == 1)
}

@Test func http10RequestDefaultsToClose() throws {
    let r = try #require(try parseAll(bytes("GET / HTTP/1.0\r\n\r\n")).first)
    #expect(r.isHTTP10)
    #expect(!r.keepAlive)
    let k = try #require(try parseAll(bytes("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")).first)
    #expect(k.keepAlive)
}

@Test func headerValuesAreTrimmedAndKeepInnerSpaces() throws {
    let r = try #require(try parseAll(bytes("GET / HTTP/1.1\r\nX-A: \t a  b \t\r\nX-Empty:\r\n\r\n")).first)
    #expect(r.headers["x-a"] == "a  b")
    #expect(r.headers["X-Empty"] == "")
}

@Test func badRequestLinesAreRejected() {
    let bad = [
        "GET /\r\n\r\n", "GET  / HTTP/1.1\r\n\r\n", "GET / HTTP/1.1 x\r\n\r\n", "G@T / HTTP/1.1\r\n\r\n",
        "GET / HTTP/1\r\n\r\n", "GET / http/1.1\r\n\r\n", "GET /a\u{7F} HTTP/1.1\r\n\r\n", "\u{0}GET / HTTP/1.1\r\n\r\n",
    ]
    for text in bad {
        let error = parseError { _ = try parseAll(bytes(text)) }
        #expect(error == .badRequestLine, "\(text.debugDescription)")
        #expect(error?.status == 400)
    }
}

@Test func otherHTTPVersionsAreAnswered505() throws {
    let error = parseError { _ = try parseAll(bytes("GET / HTTP/2.0\r\n\r\n")) }
    #expect(error == .unsupportedVersion)
    #expect(error?.status == 505)
    #expect(try parseAll(bytes("GET / HTTP/1.2\r\n\r\n")).first?.isHTTP10 == false)
}

@Test func invalidHeaderNamesAreRejected() {
    for line in ["Bad Name: x", "Bad\tName: x", "NoColon", ": empty", "Host : h", "X(y): z"] {
        let error = parseError { _ = try parseAll(bytes("GET / HTTP/1.1\r\n\(line)\r\n\r\n")) }
        #expect(error == .invalidHeaderName, "\(line)")
    }
}

@Test func controlCharactersInValuesAreRejected() {
    for value in ["a\u{0}b", "a\rb", "a\u{1}b", "a\u{7F}"] {
        let error = parseError { _ = try parseAll(bytes("GET / HTTP/1.1\r\nX: \(value)\r\n\r\n")) }
        #expect(error == .invalidHeaderValue, "\(value.debugDescription)")
    }
}

@Test func obsoleteLineFoldingIsRejectedInRequests() {
    let error = parseError { _ = try parseAll(bytes("GET / HTTP/1.1\r\nX: a\r\n  b\r\n\r\n")) }
    #expect(error == .obsoleteLineFolding)
    #expect(error?.status == 400)
}

@Test func parserStaysFailedAfterAnError() {
    var parser = HTTPRequestParser()
    parser.feed(bytes("BAD\r\n\r\nGET / HTTP/1.1\r\n\r\n"))
    #expect(parseError { _ = try parser.next() } == .badRequestLine)
    #expect(parseError { _ = try parser.next() } == .badRequestLine)
}

@Test func expectContinueIsReportedOncePerRequest() throws {
    var parser = HTTPRequestParser()
    parser.feed(bytes("POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n"))
    #expect(try parser.next() == nil)
    let first = parser.takeContinueRequest()
    let second = parser.takeContinueRequest()
    #expect(first)
    #expect(!second)
    parser.feed(bytes("ok"))
    #expect(try parser.next()?.body == bytes("ok"))
}

@Test func upgradeRequestPausesAndHandsOverFollowingBytes() throws {
    var parser = HTTPRequestParser()
    parser.feed(bytes("GET /ws HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n") + [0x81, 0x80, 1, 2, 3, 4])
    let r = try #require(try parser.next())
    #expect(r.target == "/ws")
    #expect(parser.isAwaitingUpgrade)
    #expect(try parser.next() == nil)
    #expect(parser.takeRemainingBytes() == [0x81, 0x80, 1, 2, 3, 4])
    #expect(try parser.next() == nil)
}

@Test func declinedUpgradeContinuesWithHTTP() throws {
    var parser = HTTPRequestParser()
    parser.feed(bytes("GET / HTTP/1.1\r\nUpgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\n\r\nGET /next HTTP/1.1\r\n\r\n"))
    #expect(try parser.next()?.target == "/")
    #expect(try parser.next() == nil)
    parser.declineUpgrade()
    #expect(try parser.next()?.target == "/next")
}

@Test func parserStateIsSmall() {
    // One parser per keep-alive connection; its buffers are released when drained.
    #expect(MemoryLayout<HTTPRequestParser>.size <= 256)
}

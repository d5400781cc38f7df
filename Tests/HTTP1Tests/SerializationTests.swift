import HTTP1
import Testing

@Test func responseSerializationAddsContentLength() {
    let r = HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]), body: bytes("{}"))
    #expect(r.serialized() == bytes("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"))
}

@Test func responseSerializationOmitsLengthAndBodyFor101And204And304() {
    for status in [101, 204, 304] {
        let text = String(decoding: HTTPResponse(status: status, body: bytes("x")).serialized(), as: UTF8.self)
        #expect(!text.contains("Content-Length"))
        #expect(text.hasSuffix("\r\n\r\n"))
    }
}

@Test func responseSerializationKeepsExplicitContentLength() {
    let r = HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Length", "10")]))
    #expect(r.serialized() == bytes("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"))
}

@Test func headerValuesCannotInjectLines() {
    let r = HTTPResponse(status: 200, headers: HTTPHeaders([("X", "a\r\nSet-Cookie: evil")]))
    let text = String(decoding: r.serialized(), as: UTF8.self)
    #expect(!text.contains("\r\nSet-Cookie"))
}

@Test func requestSerializationAddsHostAndLength() {
    let post = HTTPRequest(method: "POST", target: "/api/rooms", body: bytes("{}"))
    #expect(post.serialized(host: "example.com:8080") == bytes("POST /api/rooms HTTP/1.1\r\nHost: example.com:8080\r\nContent-Length: 2\r\n\r\n{}"))
    let get = HTTPRequest(method: "GET", target: "/", headers: HTTPHeaders([("Host", "h")]))
    #expect(get.serialized(host: "ignored") == bytes("GET / HTTP/1.1\r\nHost: h\r\n\r\n"))
    let emptyPost = HTTPRequest(method: "POST", target: "/")
    #expect(String(decoding: emptyPost.serialized(host: "h"), as: UTF8.self).contains("Content-Length: 0\r\n"))
}

@Test func serializedMessagesRoundTripThroughTheParsers() throws {
    let request = HTTPRequest(method: "DELETE", target: "/api/rooms/x", headers: HTTPHeaders([("Host", "h"), ("X", "1")]), body: bytes("abc"))
    let parsed = try #require(try parseAll(request.serialized(host: "h")).first)
    #expect(parsed.method == "DELETE")
    #expect(parsed.body == bytes("abc"))
    var parser = HTTPResponseParser()
    parser.feed(HTTPResponse(status: 409, body: bytes("dup")).serialized())
    let response = try #require(try parser.next())
    #expect(response.status == 409)
    #expect(response.reason == "Conflict")
    #expect(response.body == bytes("dup"))
}

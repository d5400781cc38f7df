import TestSupport
import HTTP1
import Testing
import WebSocket

private func upgradeRequest(_ edit: (inout HTTPRequest) -> Void = { _ in }) -> HTTPRequest {
    var r = HTTPRequest(method: "GET", target: "/chat", headers: HTTPHeaders([
        ("Host", "server.example.com"), ("Upgrade", "websocket"), ("Connection", "keep-alive, Upgrade"),
        ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="), ("Sec-WebSocket-Version", "13"),
    ]))
    edit(&r)
    return r
}

@Test func acceptKeyMatchesRFCExample() {
    #expect(WebSocketHandshake.accept(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
}

@Test func validUpgradeRequestGets101() {
    let outcome = WebSocketHandshake.respond(to: upgradeRequest())
    guard case .accepted(let response) = outcome else {
        Issue.record("rejected: \(outcome)")
        return
    }
    #expect(response.status == 101)
    #expect(response.headers["Upgrade"] == "websocket")
    #expect(response.headers["Connection"] == "Upgrade")
    #expect(response.headers["Sec-WebSocket-Accept"] == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    let wire = String(decoding: response.serialized(), as: UTF8.self)
    #expect(wire.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
    #expect(!wire.contains("Content-Length"))
}

@Test func headerTokensAreCaseInsensitive() {
    let r = upgradeRequest {
        $0.headers.set("upgrade", "WebSocket")
        $0.headers.set("connection", "UPGRADE")
    }
    #expect(WebSocketHandshake.isUpgradeRequest(r))
    #expect(WebSocketHandshake.respond(to: r).response.status == 101)
}

@Test func invalidUpgradeRequestsGet400() {
    let cases: [(WebSocketError, (inout HTTPRequest) -> Void)] = [
        (.handshakeNotGET, { $0.method = "POST" }),
        (.handshakeNotHTTP11, { $0.isHTTP10 = true }),
        (.handshakeMissingHost, { $0.headers.remove("Host") }),
        (.handshakeMissingUpgrade, { $0.headers.set("Upgrade", "h2c") }),
        (.handshakeMissingConnectionUpgrade, { $0.headers.set("Connection", "keep-alive") }),
        (.handshakeInvalidKey, { $0.headers.remove("Sec-WebSocket-Key") }),
        (.handshakeInvalidKey, { $0.headers.set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ") }),
        (.handshakeInvalidKey, { $0.headers.set("Sec-WebSocket-Key", "c2hvcnQ=") }),
        (.handshakeInvalidKey, { $0.headers.add("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==") }),
    ]
    for (expected, edit) in cases {
        let outcome = WebSocketHandshake.respond(to: upgradeRequest(edit))
        #expect(outcome == .rejected(outcome.response, expected))
        #expect(outcome.response.status == 400)
    }
}

@Test func wrongOrMissingVersionGets426NamingVersion13() {
    for edit: (inout HTTPRequest) -> Void in [{ $0.headers.set("Sec-WebSocket-Version", "8") }, { $0.headers.remove("Sec-WebSocket-Version") }] {
        let outcome = WebSocketHandshake.respond(to: upgradeRequest(edit))
        #expect(outcome.response.status == 426)
        #expect(outcome.response.headers["Sec-WebSocket-Version"] == "13")
        #expect(outcome == .rejected(outcome.response, .handshakeUnsupportedVersion))
    }
}

@Test func clientRequestIsAcceptedByServerAndResponseValidates() throws {
    var rng = SeededRandom(seed: 42)
    let client = WebSocketClientHandshake(using: &rng)
    #expect(Base64Check.decode(client.key) != nil)
    let request = client.request(target: "/", host: "localhost:8080")
    let wire = request.serialized(host: "localhost:8080")
    var parser = HTTPRequestParser()
    parser.feed(wire)
    let parsed = try #require(try parser.next())
    #expect(parsed.headers.values("Host") == ["localhost:8080"])
    let outcome = WebSocketHandshake.respond(to: parsed)
    #expect(outcome.response.status == 101)
    try client.validate(outcome.response)
}

@Test func clientKeyComesFromInjectedGenerator() {
    var a = SeededRandom(seed: 1)
    var b = SeededRandom(seed: 1)
    var c = SeededRandom(seed: 2)
    #expect(WebSocketClientHandshake(using: &a).key == WebSocketClientHandshake(using: &b).key)
    #expect(WebSocketClientHandshake(using: &a).key != WebSocketClientHandshake(using: &c).key)
    #expect(WebSocketClientHandshake(nonce: Array("the sample nonce".utf8))?.key == "dGhlIHNhbXBsZSBub25jZQ==")
    #expect(WebSocketClientHandshake(nonce: [1, 2, 3]) == nil)
}

@Test func clientRejectsBadServerResponses() throws {
    let client = try #require(WebSocketClientHandshake(nonce: Array("the sample nonce".utf8)))
    let good = HTTPResponse(status: 101, headers: HTTPHeaders([
        ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="),
    ]))
    try client.validate(good)
    var r = good
    r.status = 200
    #expect(throws: WebSocketError.handshakeUnexpectedStatus(200)) { try client.validate(r) }
    r = good
    r.headers.set("Sec-WebSocket-Accept", "AAAAAAAAAAAAAAAAAAAAAAAAAAA=")
    #expect(throws: WebSocketError.handshakeInvalidAccept) { try client.validate(r) }
    r = good
    r.headers.remove("Upgrade")
    #expect(throws: WebSocketError.handshakeMissingUpgrade) { try client.validate(r) }
    r = good
    r.headers.set("Connection", "close")
    #expect(throws: WebSocketError.handshakeMissingConnectionUpgrade) { try client.validate(r) }
    r = good
    r.headers.add("Sec-WebSocket-Extensions", "permessage-deflate")
    #expect(throws: WebSocketError.handshakeUnexpectedExtension) { try client.validate(r) }
}

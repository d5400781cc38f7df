import DTLS
import HTTP1
import PAKE
@testable import SignalingServer
import Testing

private func get(_ target: String, _ headers: [(String, String)] = [("Host", "chat.example:8080")], method: String = "GET", secure: Bool = false) -> HTTPResponse? {
    WebClient.response(to: HTTPRequest(method: method, target: target, headers: HTTPHeaders(headers)), secure: secure)
}

@Test func rootAndInviteLinksServeThePage() throws {
    for target in ["/", "/j/123456", "/j/000000?x=1"] {
        let response = try #require(get(target))
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(response.body == WebAsset.index.bytes)
    }
    for target in ["/j/12345", "/j/1234567", "/j/12345a", "/j/", "/index.html", "/api/rooms", "/app.js/x"] {
        #expect(get(target) == nil, "\(target) is left to the REST router")
    }
}

@Test func everyAssetHasItsTypeAndTheSecurityHeaders() throws {
    let types = ["/app.css": "text/css; charset=utf-8", "/app.js": "text/javascript; charset=utf-8",
                 "/sas-words.js": "text/javascript; charset=utf-8", "/icon.svg": "image/svg+xml",
                 "/code-words.js": "text/javascript; charset=utf-8", "/cpace.js": "text/javascript; charset=utf-8"]
    for (path, type) in types {
        let response = try #require(get(path))
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == type)
        #expect(response.headers["X-Content-Type-Options"] == "nosniff")
        #expect(response.headers["Referrer-Policy"] == "no-referrer")
        #expect(response.headers["Cache-Control"] == "no-cache")
        #expect(response.headers["ETag"]?.hasPrefix("\"") == true)
        let csp = try #require(response.headers["Content-Security-Policy"])
        #expect(csp.contains("default-src 'self'"))
        #expect(csp.contains("script-src 'self'") && csp.contains("style-src 'self'"))
        #expect(csp.contains("frame-ancestors 'none'"))
        #expect(csp.contains("connect-src 'self' ws://chat.example:8080"))
        #expect(!csp.contains("unsafe"))
    }
    #expect(get("/", secure: true)?.headers["Content-Security-Policy"]?.contains("connect-src 'self' wss://chat.example:8080") == true)
}

@Test func aHostHeaderThatCouldEndTheDirectiveStaysOutOfThePolicy() throws {
    for host in ["evil; script-src *", "a b", "x'y", ""] {
        let csp = try #require(get("/", [("Host", host)])?.headers["Content-Security-Policy"])
        #expect(csp.contains("connect-src 'self';"), "\(host)")
    }
}

@Test func aMatchingETagIsAnsweredNotModified() throws {
    let etag = try #require(get("/app.js")?.headers["ETag"])
    for header in [etag, "\"other\", \(etag)", "W/\(etag)", "*"] {
        let response = try #require(get("/app.js", [("If-None-Match", header)]))
        #expect(response.status == 304)
        #expect(response.body.isEmpty)
        #expect(response.headers["ETag"] == etag)
    }
    #expect(get("/app.js", [("If-None-Match", "\"stale\"")])?.status == 200)
    #expect(Set(WebAsset.all.map(\.etag)).count == WebAsset.all.count)
}

@Test func onlyGetAndHeadAreAllowed() throws {
    let response = try #require(get("/", method: "POST"))
    #expect(response.status == 405)
    #expect(response.headers["Allow"] == "GET, HEAD")
    let head = try #require(get("/app.css", method: "HEAD"))
    #expect(head.status == 200 && head.body.isEmpty)
    let css = try #require(get("/app.css"))
    #expect(head.headers["Content-Length"] == "\(css.body.count)" && !css.body.isEmpty)
    #expect(head.headers["ETag"] == css.headers["ETag"])
    // On the wire: the real length and nothing after the head.
    let wire = head.serialized()
    #expect(String(decoding: wire, as: UTF8.self).hasSuffix("\r\n\r\n"))
    #expect(String(decoding: wire, as: UTF8.self).components(separatedBy: "Content-Length:").count == 2)
}

@Test func theCodeInAnInviteNeverReachesTheLog() {
    #expect(WebClient.loggedPath("/j/123456") == "/j/-")
    #expect(WebClient.loggedPath("/j/123456/extra") == "/j/-")
    #expect(WebClient.loggedPath("/api/rooms") == "/api/rooms")
}

@Test func thePageHasNoInlineScriptOrStyleAndWeighsUnder100KB() {
    let html = WebPage.html
    #expect(!html.contains("style="))
    #expect(!html.contains("<style"))
    #expect(html.firstMatch(of: /\son[a-z]+\s*=/) == nil, "no inline event handlers")
    // Every <script> loads a file.
    for part in html.components(separatedBy: "<script").dropFirst() {
        #expect(part.hasPrefix(" src=\"/"))
    }
    let weight = WebAsset.all.reduce(0) { $0 + $1.bytes.count }
    #expect(weight < 100 * 1024, "page weight \(weight) bytes")
    // Peer text only as text: no script ever assigns HTML; none evaluates a string.
    for script in [WebPage.script, WebPage.cpace, WebPage.codeWords, WebPage.sasWords] {
        for banned in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"] {
            #expect(!script.contains(banned), "\(banned)")
        }
    }
}

@Test func thePageHasChatclisSafetyWordsInOrder() {
    let list = WebPage.sasWords.split(separator: "freeze([", maxSplits: 1).last ?? ""
    let quoted = list.split(separator: "'").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    #expect(quoted == SAS.wordList)
}

@Test func thePageHasChatclisCodeWordsInOrder() {
    let list = WebPage.codeWords.split(separator: "freeze([", maxSplits: 1).last ?? ""
    let quoted = list.split(separator: "'").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    #expect(quoted == CodeSecret.words)
}

/// The page's scripts load in order: the word lists and CPace before the client.
@Test func thePageLoadsCPaceBeforeTheClient() {
    let scripts = WebPage.html.matches(of: /<script src="([^"]+)" defer><\/script>/).map { String($0.output.1) }
    #expect(scripts == ["/sas-words.js", "/code-words.js", "/cpace.js", "/app.js"])
}

@Test func corsIsOffByDefaultAndNamesOneOrigin() throws {
    #expect(ServerConfiguration().cors == nil)
    for bad in ["*", "chat.example", "https://chat.example/path", "ftp://x", "https://", "https://a b"] {
        #expect(CORSPolicy(origin: bad) == nil, "\(bad)")
    }
    let cors = try #require(CORSPolicy(origin: "https://chat.example:8443"))
    let preflight = try #require(cors.preflight(HTTPRequest(method: "OPTIONS", target: "/api/rooms")))
    #expect(preflight.status == 204)
    #expect(preflight.headers["Access-Control-Allow-Methods"] == "GET, POST, DELETE")
    #expect(cors.preflight(HTTPRequest(method: "OPTIONS", target: "/")) == nil)
    var response = HTTPResponse.json(200, ["ok": true])
    cors.decorate(&response, for: HTTPRequest(method: "POST", target: "/api/rooms/accept"))
    #expect(response.headers["Access-Control-Allow-Origin"] == "https://chat.example:8443")
    var page = HTTPResponse(status: 200)
    cors.decorate(&page, for: HTTPRequest(method: "GET", target: "/"))
    #expect(page.headers["Access-Control-Allow-Origin"] == nil)
}

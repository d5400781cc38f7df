import HTTP1
@testable import SignalingServer
import Testing
import Wire

@Test func unknownPathsAreNotFound() throws {
    let f = try Fixture()
    for target in ["/", "/api", "/api/room", "/rooms", "/api/rooms/accept/x", "/healthz2"] {
        let response = f.send("GET", target)
        #expect(response.status == 404)
        #expect(response.errorCode == "not_found")
        #expect(response.contentType == "application/json")
    }
}

@Test func wrongMethodIsNotAllowedWithAllow() throws {
    let f = try Fixture()
    let cases: [(String, String, String)] = [
        ("PUT", "/api/rooms", "GET, POST, DELETE"), ("GET", "/api/rooms/accept", "POST"),
        ("DELETE", "/api/rooms/check", "POST"), ("GET", "/api/user/purge", "POST"),
        ("POST", "/api/ice-servers", "GET"), ("POST", "/healthz", "GET"),
    ]
    for (method, target, allow) in cases {
        let response = f.send(method, target, "{}")
        #expect(response.status == 405)
        #expect(response.errorCode == "method_not_allowed")
        #expect(response.headers["Allow"] == allow)
    }
}

@Test func healthzIsOK() throws {
    let f = try Fixture()
    let response = f.send("GET", "/healthz")
    #expect(response.status == 200)
    #expect(response.body == Array(#"{"ok":true}"#.utf8))
}

@Test func bodyTooLargeHelperAnswers413() {
    let response = HTTPResponse.bodyTooLarge
    #expect(response.status == 413)
    #expect(response.errorCode == "body_too_large")
    #expect(response.contentType == "application/json")
}

@Test func iceServersUseTheHostTheClientAddressed() throws {
    let f = try Fixture()
    let cases: [(String?, String)] = [
        ("chat.example.com:8080", "stun:chat.example.com:3478"), ("chat.example.com", "stun:chat.example.com:3478"),
        ("[::1]:8080", "stun:[::1]:3478"), ("[2001:db8::1]", "stun:[2001:db8::1]:3478"),
        ("10.0.0.5:80", "stun:10.0.0.5:3478"), (nil, "stun:localhost:3478"), ("evil/host\"", "stun:localhost:3478"),
    ]
    for (host, url) in cases {
        let response = f.send("GET", "/api/ice-servers", host: host)
        #expect(response.status == 200)
        #expect(response.body == Array(#"{"iceServers":[{"urls":["\#(url)"]}]}"#.utf8), "\(host ?? "nil")")
    }
}

@Test func iceServersAddTURNWithRESTCredentialsWhenConfigured() throws {
    let secret = Array("s3cret".utf8)
    let urls = ["turn:turn.example.com:3478?transport=udp", "turns:turn.example.com:5349?transport=tcp"]
    let f = try Fixture(iceServers: ICEServerConfiguration(stunPort: 3479, turnURLs: urls, turnSecret: secret))
    let response = f.send("GET", "/api/ice-servers", host: "chat.example.com")
    let servers = try #require(response.json?["iceServers"]?.arrayValue)
    #expect(servers.count == 2)
    #expect(servers[0] == ["urls": ["stun:chat.example.com:3479"]])
    #expect(servers[1]["urls"] == .array(urls.map(JSON.string)))
    let username = try #require(servers[1]["username"]?.stringValue)
    let parts = username.split(separator: ":")
    #expect(parts.count == 2)
    #expect(Int64(parts[0]) == f.now.seconds + 86_400)
    let mac = try #require(ICEServerConfiguration.hmacSHA1(key: secret, message: Array(username.utf8)))
    #expect(servers[1]["credential"]?.stringValue == Base64.encode(mac))
}

@Test func turnNeedsASecret() throws {
    let f = try Fixture(iceServers: ICEServerConfiguration(turnURLs: ["turn:t.example:3478"]))
    #expect(f.send("GET", "/api/ice-servers").json?["iceServers"]?.arrayValue?.count == 1)
}

@Test func hmacSHA1MatchesRFC2202() {
    let mac = ICEServerConfiguration.hmacSHA1(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8))
    #expect(mac.map(Hex.encode) == "b617318655057264e28bc0b6fb378c8ef146be00")
    let jefe = ICEServerConfiguration.hmacSHA1(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
    #expect(jefe.map(Hex.encode) == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
}

@Test func base64MatchesRFC4648() {
    let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
    for (input, output) in vectors { #expect(Base64.encode(Array(input.utf8)) == output) }
    #expect(Base64.encode([0xFB, 0xFF]) == "+/8=")
}

@Test func iso8601MatchesJavaScriptToISOString() {
    #expect(UnixTime(milliseconds: 0).iso8601 == "1970-01-01T00:00:00.000Z")
    #expect(UnixTime(milliseconds: 951_782_400_123).iso8601 == "2000-02-29T00:00:00.123Z")
    #expect(UnixTime(milliseconds: 1_795_428_000_000).iso8601 == "2026-11-23T10:00:00.000Z")
    #expect(UnixTime(milliseconds: 4_102_444_799_999).iso8601 == "2099-12-31T23:59:59.999Z")
}

@Test func trailingSlashIsTolerated() throws {
    let f = try Fixture()
    #expect(f.send("GET", "/healthz/").status == 200)
}

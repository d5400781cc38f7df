import HTTP1
@testable import SignalingServer
import Testing

/// The `--lan` creator's endpoint answers another host only the joiner's calls.
@Test func theEmbeddedEndpointAnswersAnotherHostOnlyTheJoinersCalls() {
    let joiner = [("POST", "/api/rooms/accept"), ("POST", "/api/rooms/accept/"), ("GET", "/api/ice-servers"),
                  ("GET", "/api/ice-servers?roomid=x")]
    for (method, target) in joiner {
        #expect(EmbeddedEndpoint.answersFromAnotherHost(HTTPRequest(method: method, target: target)), "\(method) \(target)")
    }
    let creatorsOnly = [("POST", "/api/rooms"), ("GET", "/api/rooms"), ("DELETE", "/api/rooms"), ("POST", "/api/rooms/check"),
                        ("POST", "/api/user/purge"), ("GET", "/"), ("GET", "/healthz"), ("OPTIONS", "/api/rooms/accept"),
                        ("GET", "/api/rooms/accept"), ("POST", "/api/ice-servers"), ("GET", "/app.js")]
    for (method, target) in creatorsOnly {
        #expect(!EmbeddedEndpoint.answersFromAnotherHost(HTTPRequest(method: method, target: target)), "\(method) \(target)")
    }
    let upgrade = HTTPRequest(method: "GET", target: "/ws", headers: HTTPHeaders([
        ("Host", "x"), ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
        ("Sec-WebSocket-Version", "13"),
    ]))
    #expect(EmbeddedEndpoint.answersFromAnotherHost(upgrade))
    #expect(EmbeddedEndpoint.refusal.status == 403)
}

import ChatClient
import TestSupport
import HTTP1
import Testing
import Wire

@Suite struct ServerURLTests {
    @Test(arguments: [
        ("http://localhost:8080", false, "localhost", 8080),
        ("https://chat.example.org", true, "chat.example.org", 443),
        ("http://[::1]:9000/", false, "::1", 9000),
        ("wss://h:444/ws", true, "h", 444),
        ("HTTP://Example.com", false, "Example.com", 80),
    ])
    func parsesServerURLs(text: String, secure: Bool, host: String, port: Int) throws {
        let url = try #require(ServerURL(text))
        #expect(url.secure == secure && url.host == host && Int(url.port) == port)
    }

    @Test(arguments: ["localhost:8080", "ftp://x", "http://", "http://h:0", "http://h:99999", "http://[::1", "http://u@h", "http://a b"])
    func rejectsWhatIsNotAServerURL(text: String) {
        #expect(ServerURL(text) == nil)
    }

    @Test func authorityOmitsDefaultPortsAndBracketsIPv6() {
        #expect(ServerURL("https://h:443")?.authority == "h")
        #expect(ServerURL("http://[::1]:8080")?.authority == "[::1]:8080")
    }
}

@Suite struct BackoffTests {
    @Test func ceilingDoublesFromHalfASecondToThirtySeconds() {
        var b = Backoff()
        var rng = SeededRandom(seed: 1)
        var ceilings: [Int64] = []
        for _ in 0..<9 {
            ceilings.append(b.ceiling.milliseconds)
            _ = b.next(using: &rng)
        }
        #expect(ceilings == [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000])
    }

    @Test func delaysAreFullJitterWithinTheCeiling() {
        var rng = SeededRandom(seed: 2)
        var seen = Set<Int64>()
        for _ in 0..<200 {
            var b = Backoff()
            let d = b.next(using: &rng).milliseconds
            #expect(d >= 0 && d <= 500)
            seen.insert(d / 100)
        }
        #expect(seen.count >= 4, "delays spread over the whole range")
    }

    @Test func resetStartsOver() {
        var b = Backoff()
        var rng = SeededRandom(seed: 3)
        for _ in 0..<5 { _ = b.next(using: &rng) }
        b.reset()
        #expect(b.ceiling == .milliseconds(500))
    }
}

@Suite struct HeartbeatTests {
    @Test func pingsEveryIntervalAndTimesOutWithoutPong() {
        var hb = Heartbeat(now: .zero)
        #expect(hb.poll(now: .seconds(24)) == nil)
        #expect(hb.poll(now: .seconds(25)) == .sendPing)
        #expect(hb.deadline == .seconds(35))
        #expect(hb.poll(now: .seconds(34)) == nil)
        #expect(hb.poll(now: .seconds(35)) == .timedOut)
    }

    @Test func pongKeepsTheConnectionAlive() {
        var hb = Heartbeat(now: .zero)
        #expect(hb.poll(now: .seconds(25)) == .sendPing)
        hb.pongReceived()
        #expect(hb.poll(now: .seconds(40)) == nil)
        #expect(hb.poll(now: .seconds(50)) == .sendPing)
    }
}

@Suite struct IdentifierTests {
    @Test func joinCodesAreSixDigitsAndSpread() {
        var rng = SeededRandom(seed: 4)
        var firstDigits = Set<Character>()
        for _ in 0..<500 {
            let code = Identifiers.joinCode(using: &rng)
            #expect(code.count == 6 && code.allSatisfy(\.isNumber))
            firstDigits.insert(code.first!)
        }
        #expect(firstDigits.count == 10, "leading zeros included")
    }

    @Test func deviceIDsAreFreshAndValid() {
        var rng = SeededRandom(seed: 5)
        let ids = (0..<100).map { _ in Identifiers.deviceID(using: &rng) }
        #expect(Set(ids).count == 100)
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
    }
}

@Suite struct RoomAPITests {
    func response(_ status: Int, _ body: String = "", headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders(headers), body: Array(body.utf8))
    }

    @Test func createTreatsInvisoDuplicateAsCodeInUse() {
        #expect(RoomAPI.interpretCreate(response(409, #"{"error":"joinid_in_use"}"#)) == .codeInUse)
        #expect(RoomAPI.interpretCreate(response(500, #"{"error":"create_failed"}"#)) == .codeInUse)
        #expect(RoomAPI.interpretCreate(response(201, #"{"ok":true,"exp":"2026-01-01T00:00:00.000Z"}"#)) == .created(expires: "2026-01-01T00:00:00.000Z"))
    }

    @Test func acceptMapsEveryRefusalToAnActionableError() {
        #expect(RoomAPI.interpretAccept(response(200, #"{"roomid":"ab"}"#)) == .accepted(roomID: "ab"))
        #expect(RoomAPI.interpretAccept(response(404, "<html>")) == .failed(.codeNotFound))
        #expect(RoomAPI.interpretAccept(response(409, #"{"error":"already_accepted"}"#)) == .failed(.codeAlreadyUsed))
        #expect(RoomAPI.interpretAccept(response(429, #"{"error":"rate_limited"}"#, headers: [("Retry-After", "42")])) == .failed(.rateLimited(retryAfter: 42)))
        #expect(RoomAPI.interpretAccept(response(200, "not json")) == .failed(.protocolViolation("the server accepted the code but sent no room id")))
    }

    @Test func checkDistinguishesPendingAcceptedAndGone() {
        #expect(RoomAPI.interpretCheck(response(204)) == .pending)
        #expect(RoomAPI.interpretCheck(response(200, #"{"roomid":"r"}"#)) == .accepted(roomID: "r"))
        #expect(RoomAPI.interpretCheck(response(404)) == .failed(.codeExpired))
    }

    @Test func requestsCarryTheProtocolFields() throws {
        let req = RoomAPI.createRequest(code: "012345", deviceID: "dev-123456", expiresIn: 600, authority: "h:1")
        #expect(req.method == "POST" && req.target == "/api/rooms" && req.headers["Host"] == "h:1")
        let body = try JSON.parse(req.body)
        #expect(body == ["joinid": "012345", "expiresInSeconds": 600, "client1": "dev-123456"])
        #expect(RoomAPI.checkRequest(code: "1", deviceID: "d", wait: 25, authority: "h").target == "/api/rooms/check?wait=25")
    }

    @Test func everyErrorHasOneSentenceAndACode() {
        let errors: [ClientError] = [.invalidCode("x"), .unreachable(server: "s", reason: "r"), .tls(server: "s", reason: "r"), .timeout("t"),
                                     .codeNotFound, .codeAlreadyUsed, .codeExpired, .rateLimited(retryAfter: nil), .roomNotFound, .roomFull,
                                     .server(status: 500, code: nil, action: "a"), .protocolViolation("p"), .connectionLost("c"), .interrupted,
                                     .lan(.noMulticast(interface: nil, reason: nil)), .lan(.noMulticast(interface: "eth0", reason: "Operation not permitted")),
                                     .lan(.cannotStart(what: "w", reason: "r")), .lan(.silence(seconds: 5, interfaces: ["eth0", "wlan0"])),
                                     .lan(.noMatch(nearby: 2, locator: "123456")), .lan(.twoClaimants)]
        for e in errors {
            #expect(!e.code.isEmpty && e.code.allSatisfy { $0.isLowercase || $0 == "_" })
            #expect(e.message.hasSuffix(".") && !e.message.contains("\n"))
        }
    }

    /// A peer's unusable SDP and a socket this machine cannot bind are not the server's fault.
    @Test func errorsBlameWhoFailed() {
        let peer = ClientError.peerUnusable("no fingerprint")
        #expect(peer.message.hasPrefix("Your peer's app") && !peer.message.contains("server") && peer.code == "peer_protocol_error")
        let local = ClientError.localSystem("no local address could be bound for UDP")
        #expect(local.message.hasPrefix("This machine") && !local.message.contains("server") && local.code == "local_error")
        #expect(ClientError.protocolViolation("p").message.hasPrefix("The server"))
        // `receive` is a join too: the sentence names what a sender runs, not only `create`.
        #expect(ClientError.codeAlreadyUsed.message.contains("'chatcli send' for files"))
    }
}

@Suite struct ICEServerTests {
    @Test func iceServersAcceptArrayAndSingleStringURLs() {
        let body = #"{"iceServers":[{"urls":["stun:h:3478","turn:h:3478?transport=tcp"]},{"urls":"stun:other:19302"}]}"#
        let r = HTTPResponse(status: 200, body: Array(body.utf8))
        #expect(RoomAPI.iceServerURLs(r) == ["stun:h:3478", "turn:h:3478?transport=tcp", "stun:other:19302"])
        #expect(RoomAPI.iceServerURLs(HTTPResponse(status: 404, body: Array("<html>".utf8))) == [])
    }

    @Test func iceServerURLsParseHostPortAndTransport() throws {
        let turn = try #require(ICEServerURL("turn:[2001:db8::1]:3479?transport=tcp"))
        #expect(turn.scheme == .turn && turn.host == "2001:db8::1" && turn.port == 3479 && turn.transport == "tcp")
        #expect(ICEServerURL("stun:example.org")?.port == 3478)
        #expect(ICEServerURL("turns:example.org")?.port == 5349)
        for bad in ["stun:", "stun:[::1", "stun:[::1]x", "stun:h:0", "http://h", "stun:u@h"] { #expect(ICEServerURL(bad) == nil, "\(bad)") }
    }
}

@Suite struct HeartbeatProbeTests {
    @Test func aProbePingsAtOnceAndTimesOutSoonerThanTheHeartbeat() {
        var hb = Heartbeat(now: .zero)
        hb.probe(now: .seconds(3), timeout: .seconds(2))
        #expect(hb.deadline == .seconds(3))
        #expect(hb.poll(now: .seconds(3)) == .sendPing)
        #expect(hb.deadline == .seconds(5))
        #expect(hb.poll(now: .seconds(5)) == .timedOut)
    }

    @Test func anAnsweredProbeLeavesTheUsualSchedule() {
        var hb = Heartbeat(now: .zero)
        hb.probe(now: .seconds(3), timeout: .seconds(2))
        #expect(hb.poll(now: .seconds(3)) == .sendPing)
        hb.pongReceived()
        #expect(hb.poll(now: .seconds(6)) == nil)
        #expect(hb.deadline == .seconds(28))
    }
}

/// A failed PAKE's sentence claims only what is true: what the user typed
/// was held until the code proved the peer, so none of it was sent.
@Test func pakeFailedSaysNothingTypedWasSentAndMakesNoClaimAboutWhatWasShown() {
    let message = ClientError.pakeFailed.message
    #expect(!message.contains("nothing was sent or shown"))
    #expect(message.contains("before anything you typed was sent"))
    #expect(message.contains("cannot be tried again"))
}

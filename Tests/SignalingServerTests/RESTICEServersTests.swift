import HTTP1
import Signaling
@testable import SignalingServer
import TestSupport
import Testing
import Wire

/// `GET /api/ice-servers?roomid=R&deviceId=D`: TURN credentials scoped to a
/// room member, and `--turn-members-only`.
@Suite struct MemberScopedTURNTests {
    static let secret = Array("s3cret".utf8)
    static let urls = ["turn:turn.example.com:3478?transport=udp", "turn:turn.example.com:3478?transport=tcp"]

    static func fixture(membersOnly: Bool = false, lifetime: Int64 = 86_400) throws -> Fixture {
        try Fixture(iceServers: ICEServerConfiguration(
            turnURLs: urls, turnSecret: secret, credentialLifetimeSeconds: lifetime, membersOnly: membersOnly))
    }

    static func iceServers(_ f: Fixture, room: String, device: String) -> HTTPResponse {
        f.send("GET", "/api/ice-servers?roomid=\(room)&deviceId=\(device)")
    }

    /// The TURN entry, after checking that its credential is the base64
    /// HMAC-SHA1 of its username under the shared secret (what coturn checks).
    static func turnEntry(_ response: HTTPResponse) throws -> (expiry: Int64, id: String) {
        #expect(response.status == 200)
        let servers = try #require(response.json?["iceServers"]?.arrayValue)
        try #require(servers.count == 2, "\(servers)")
        #expect(servers[1]["urls"] == .array(urls.map(JSON.string)))
        let username = try #require(servers[1]["username"]?.stringValue)
        let mac = try #require(ICEServerConfiguration.hmacSHA1(key: secret, message: Array(username.utf8)))
        #expect(servers[1]["credential"]?.stringValue == Base64.encode(mac))
        let parts = username.split(separator: ":", omittingEmptySubsequences: false)
        try #require(parts.count == 2)
        return (try #require(Int64(parts[0])), String(parts[1]))
    }

    @Test func aMemberGetsCredentialsNamedByAKeyedHashThatExpireWithTheRoom() throws {
        let f = try Self.fixture()
        let room = f.acceptedRoom()   // expires in 600 s
        f.advance(seconds: 100)
        let alice = try Self.turnEntry(Self.iceServers(f, room: room, device: Fixture.alice))
        let bob = try Self.turnEntry(Self.iceServers(f, room: room, device: Fixture.bob))
        let roomExpiry = f.now.seconds + 500
        #expect(alice.expiry == roomExpiry && bob.expiry == roomExpiry)
        // HMAC-SHA1(secret, "chatcli-turn-member" NUL roomid NUL deviceId), 16 hex characters.
        let message = Array("chatcli-turn-member\0\(room)\0\(Fixture.alice)".utf8)
        let expected = try #require(ICEServerConfiguration.hmacSHA1(key: Self.secret, message: message))
        #expect(alice.id == String(Hex.encode(expected).prefix(16)))
        #expect(alice.id != bob.id)
        #expect(!alice.id.contains(room.prefix(8)) && !alice.id.contains("alice"))
        // Stable for the member, so the TURN server's quotas count members.
        f.advance(seconds: 10)
        #expect(try Self.turnEntry(Self.iceServers(f, room: room, device: Fixture.alice)).id == alice.id)
    }

    @Test func aMembersCredentialsLastNoLongerThanTheLifetime() throws {
        let f = try Self.fixture(lifetime: 300)
        let room = f.acceptedRoom()   // expires in 600 s
        #expect(try Self.turnEntry(Self.iceServers(f, room: room, device: Fixture.bob)).expiry == f.now.seconds + 300)
    }

    @Test func anyoneElseIsNotAMemberAndGetsNoCredentials() throws {
        let f = try Self.fixture()
        let room = f.acceptedRoom()
        f.create("654321", client1: "carol-device-3")   // pending: no room id yet
        let gone = f.acceptedRoom("111111")
        #expect(f.send("DELETE", "/api/rooms", #"{"roomid":"\#(gone)"}"#).status == 200)
        let cases = [
            (room, "carol-device-3"), (String(repeating: "ab", count: 24), Fixture.alice), (gone, Fixture.alice),
            (room.uppercased(), Fixture.alice), (String(room.dropLast()), Fixture.alice), (room, "short"), (room, "alice%2Ddevice-1"),
        ]
        for (roomID, device) in cases {
            let response = Self.iceServers(f, room: roomID, device: device)
            #expect(response.status == 403, "\(roomID) \(device)")
            #expect(response.body == Array(#"{"error":"not_a_member"}"#.utf8))
        }
        f.advance(seconds: 600)   // the room expired
        #expect(Self.iceServers(f, room: room, device: Fixture.alice).errorCode == "not_a_member")
    }

    /// Before: only the creator and the first acceptor of a group room got them.
    @Test func everyMemberOfAGroupRoomGetsCredentialsOfItsOwn() throws {
        let f = try Self.fixture(membersOnly: true)
        f.createGroup(max: 3)
        let room = try #require(f.accept().json?["roomid"]?.stringValue)
        _ = f.accept(client2: "carol-device-3")
        let ids = try [Fixture.alice, Fixture.bob, "carol-device-3"].map { try Self.turnEntry(Self.iceServers(f, room: room, device: $0)).id }
        #expect(Set(ids).count == 3)
        #expect(Self.iceServers(f, room: room, device: "dave-device-4").errorCode == "not_a_member")
    }

    @Test func oneParameterWithoutTheOtherIsMissing() throws {
        let f = try Self.fixture()
        let room = f.acceptedRoom()
        #expect(f.send("GET", "/api/ice-servers?roomid=\(room)").errorCode == "missing_deviceId")
        #expect(f.send("GET", "/api/ice-servers?roomid=\(room)&deviceId=").errorCode == "missing_deviceId")
        #expect(f.send("GET", "/api/ice-servers?deviceId=\(Fixture.alice)").errorCode == "missing_roomid")
        #expect(f.send("GET", "/api/ice-servers?deviceId=\(Fixture.alice)").status == 400)
        // Both empty is no room named at all, as is an unrelated parameter.
        #expect(try Self.turnEntry(f.send("GET", "/api/ice-servers?roomid=&deviceId=")).id.count == 16)
        #expect(try Self.turnEntry(f.send("GET", "/api/ice-servers?x=1")).id.count == 16)
    }

    @Test func withoutParametersTheDefaultIsUnchanged() throws {
        let f = try Self.fixture()
        let response = f.send("GET", "/api/ice-servers", host: "chat.example.com")
        let anyone = try Self.turnEntry(response)
        #expect(anyone.expiry == f.now.seconds + 86_400)
        #expect(anyone.id.count == 16 && anyone.id.allSatisfy(\.isHexDigit))
        #expect(response.json?["turnMembersOnly"] == nil)
        #expect(response.json?["iceServers"]?.arrayValue?.first == ["urls": ["stun:chat.example.com:3478"]])
    }

    @Test func membersOnlyWithoutARoomGivesTheSTUNEntryAlone() throws {
        let f = try Self.fixture(membersOnly: true)
        let response = f.send("GET", "/api/ice-servers", host: "chat.example.com")
        #expect(response.status == 200)
        #expect(response.body == Array(#"{"iceServers":[{"urls":["stun:chat.example.com:3478"]}],"turnMembersOnly":true}"#.utf8))
        let room = f.acceptedRoom()
        #expect(try Self.turnEntry(Self.iceServers(f, room: room, device: Fixture.alice)).expiry == f.now.seconds + 600)
        #expect(Self.iceServers(f, room: room, device: "mallory-device").status == 403)
    }

    @Test func membersOnlyWithoutTURNWithholdsNothing() throws {
        let f = try Fixture(iceServers: ICEServerConfiguration(membersOnly: true))
        #expect(f.send("GET", "/api/ice-servers").body == Array(#"{"iceServers":[{"urls":["stun:localhost:3478"]}]}"#.utf8))
    }

    @Test func fuzzedQueriesAreAnsweredNeverCrash() throws {
        let f = try Self.fixture(membersOnly: true)
        let room = f.acceptedRoom()
        let seed = Array("roomid=\(room)&deviceId=\(Fixture.alice)".utf8)
        let alphabet = Array("=&%?#abcdef0123456789-_".utf8) + [0x00, 0x20, 0xFF, 0xC3]
        var rng = SeededRandom(seed: 77)
        for i in 0..<3000 {
            var query = Array(seed.prefix(Int.random(in: 0...seed.count, using: &rng)))
            for _ in 0..<(i % 4) where !query.isEmpty {
                query[Int.random(in: 0..<query.count, using: &rng)] = alphabet.randomElement(using: &rng) ?? 0
            }
            let response = f.send("GET", "/api/ice-servers?" + String(decoding: query, as: UTF8.self))
            #expect([200, 400, 403].contains(response.status))
            #expect(response.json != nil)
        }
    }
}

/// The embedded relay's URLs: on the host the request came to, or on the
/// instance's own name (`serve --turn-host`) behind a load balancer.
@Test func theEmbeddedRelayIsNamedByTurnHostElseByTheRequestsHost() {
    var configuration = ICEServerConfiguration(stunPort: 3478, turnSecret: Array("s3cret".utf8))
    var random = SeededRandom(seed: 1)
    func urls() -> JSON? {
        let body = configuration.body(hostHeader: "lb.example.com:443", grantee: .anyone, now: UnixTime(milliseconds: 1_800_000_000_000),
                                      random: &random)
        return body["iceServers"]?.arrayValue?.last?["urls"]
    }
    configuration.embeddedRelay = (3478, 8080, false, nil)
    #expect(urls() == .array(["turn:lb.example.com:3478?transport=udp", "turn:lb.example.com:8080?transport=tcp"].map(JSON.string)))
    configuration.embeddedRelay = (3478, 8443, true, "relay1.example.com")
    #expect(urls() == .array(["turn:relay1.example.com:3478?transport=udp", "turns:relay1.example.com:8443?transport=tcp"].map(JSON.string)))
}

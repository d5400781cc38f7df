import Redis
import Runtime
@testable import SignalingServer
import Testing
import TestSupport

/// The cluster's Lua scripts against a real redis-server. Every script takes
/// `now` as an argument, so expiry, the rate limit's window and seat rules
/// are driven by a manual clock here; only Redis's own TTLs run on its clock,
/// and the base time is the real one so they never fire during a test.
@Suite(.serialized, .enabled(if: RedisServer.isInstalled))
final class ClusterScriptTests {
    let server: RedisServer
    let loop: EventLoop
    let connection: RedisConnection
    let t0 = wallClockMilliseconds()
    let prefix = "t:"

    init() throws {
        server = try RedisServer()
        loop = try EventLoop()
        var settings = RedisConnection.Settings(url: RedisURL(host: "127.0.0.1", port: server.port))
        settings.setup = ClusterScripts.all.map(\.loadCommand)
        connection = RedisConnection(loop: loop, settings: settings)
        connection.onReady = { [loop] in loop.stop() }
        connection.start()
        _ = loop.run(timeout: .seconds(10))
    }

    /// Runs one command and returns its reply.
    func send(_ command: [String]) throws -> RESPValue {
        nonisolated(unsafe) var reply: Result<RESPValue, RedisError>?
        connection.send(command) { [loop] in reply = $0; loop.stop() }
        #expect(loop.run(timeout: .seconds(10)))
        return try #require(reply).get()
    }

    func run(_ script: RedisScript, at offset: Int64, _ arguments: [String]) throws -> RESPValue {
        try send(script.command([prefix, String(t0 + offset)] + arguments))
    }

    func strings(_ value: RESPValue) -> [String] { value.elements?.compactMap(\.string) ?? [] }

    @Test func aCodeLivesUntilItsExpiryAndRedisExpiresItThen() throws {
        let exp = t0 + 60_000
        #expect(try run(ClusterScripts.create, at: 0, ["123456", "alice-device", String(exp), "100000"]) == .integer(exp))
        #expect(try run(ClusterScripts.create, at: 1_000, ["123456", "mallory-dev", String(exp + 1), "100000"]) == .integer(0))
        // The creator's retry (its answer was lost) is answered as the first was.
        #expect(try run(ClusterScripts.create, at: 2_000, ["123456", "alice-device", String(exp + 2_000), "100000"]) == .integer(exp))
        #expect(strings(try run(ClusterScripts.check, at: 59_999, ["123456", "alice-device"])) == ["pending"])
        #expect(strings(try run(ClusterScripts.check, at: 60_000, ["123456", "alice-device"])) == ["notfound"])
        #expect(strings(try run(ClusterScripts.check, at: 0, ["123456", "someone-else"])) == ["notfound"])
        #expect(try send(["PEXPIRETIME", "t:code:123456"]) == .integer(exp))
        // Expired by the servers' clock, the code is free again at once.
        #expect(try run(ClusterScripts.create, at: 60_000, ["123456", "bobby-device", String(exp + 60_000), "100000"]) == .integer(exp + 60_000))
    }

    /// `maxRooms` live codes fill the code space (-1); a code that expires
    /// or is deleted frees its place, and a retry of a live code is still answered.
    @Test func theCodeSpaceHoldsAtMostMaxRoomsLiveCodes() throws {
        let exp = t0 + 60_000
        #expect(try run(ClusterScripts.create, at: 0, ["100001", "alice-device", String(exp), "2"]) == .integer(exp))
        #expect(try run(ClusterScripts.create, at: 0, ["100002", "bobby-device", String(exp + 1_000), "2"]) == .integer(exp + 1_000))
        #expect(try run(ClusterScripts.create, at: 10, ["100003", "carol-device", String(exp), "2"]) == .integer(-1))
        #expect(try run(ClusterScripts.create, at: 20, ["100001", "alice-device", String(exp), "2"]) == .integer(exp))
        // The first code expires: its place is free.
        #expect(try run(ClusterScripts.create, at: 60_000, ["100003", "carol-device", String(exp + 60_000), "2"]) == .integer(exp + 60_000))
        #expect(try run(ClusterScripts.create, at: 60_001, ["100004", "dave0-device", String(exp + 60_000), "2"]) == .integer(-1))
        // A purged code frees its place at once.
        #expect(try run(ClusterScripts.purge, at: 60_002, ["bobby-device"]).elements?.compactMap(\.integer) == [0, 1])
        #expect(try run(ClusterScripts.create, at: 60_003, ["100004", "dave0-device", String(exp + 60_000), "2"]) == .integer(exp + 60_000))
    }

    @Test func acceptingTwiceIsTakenAndTheRoomExpiresWithTheCode() throws {
        let exp = t0 + 600_000
        let room = String(repeating: "ab", count: 24)
        _ = try run(ClusterScripts.create, at: 0, ["222222", "alice-device", String(exp), "100000"])
        #expect(strings(try run(ClusterScripts.accept, at: 10, ["222222", "bobby-device", "addr", "10", "60000", room])) == ["ok", room, String(exp)])
        #expect(strings(try run(ClusterScripts.accept, at: 20, ["222222", "carol-device", "addr", "10", "60000", room])) == ["taken"])
        // The joiner's retry gets the same room, whatever roomid it would have made.
        let other = String(repeating: "99", count: 24)
        #expect(strings(try run(ClusterScripts.accept, at: 25, ["222222", "bobby-device", "addr", "10", "60000", other])) == ["ok", room, String(exp)])
        #expect(strings(try run(ClusterScripts.check, at: 30, ["222222", "alice-device"])) == ["accepted", room])
        #expect(strings(try run(ClusterScripts.lookup, at: 40, [room])) == ["alice-device", "bobby-device", String(exp)])
        #expect(try send(["PEXPIRETIME", "t:room:" + room]) == .integer(exp))
        // Accepted rooms are never swept early: they live to their expiry.
        #expect(strings(try run(ClusterScripts.check, at: 599_999, ["222222", "alice-device"])) == ["accepted", room])
        #expect(try run(ClusterScripts.lookup, at: 600_000, [room]).isNull)
    }

    @Test func theRateLimitIsASlidingWindowOfMisses() throws {
        for i in 0..<10 {
            #expect(strings(try run(ClusterScripts.accept, at: Int64(i), ["99999\(i)", "bobby-device", "10.0.0.1", "10", "60000", "x"])) == ["notfound"])
        }
        let limited = try run(ClusterScripts.accept, at: 100, ["123123", "bobby-device", "10.0.0.1", "10", "60000", "x"])
        #expect(limited == .array([.bulk(Array("limited".utf8)), .integer(59_900)]))
        #expect(try run(ClusterScripts.limited, at: 100, ["10.0.0.1", "10", "60000"]) == .integer(59_900))
        #expect(try run(ClusterScripts.limited, at: 100, ["10.0.0.2", "10", "60000"]) == .integer(0))
        // Free again a window after the oldest miss.
        #expect(try run(ClusterScripts.limited, at: 60_000, ["10.0.0.1", "10", "60000"]) == .integer(0))
    }

    @Test func purgeCountsAcceptedAndPendingRoomsOfTheseDevices() throws {
        let exp = String(t0 + 600_000)
        _ = try run(ClusterScripts.create, at: 0, ["111111", "alice-device", exp, "100000"])
        _ = try run(ClusterScripts.create, at: 0, ["333333", "alice-device", exp, "100000"])
        _ = try run(ClusterScripts.create, at: 0, ["444444", "other-device", exp, "100000"])
        _ = try run(ClusterScripts.accept, at: 0, ["333333", "bobby-device", "a", "10", "60000", String(repeating: "cd", count: 24)])
        #expect(try run(ClusterScripts.purge, at: 1, ["alice-device", "bobby-device"]) == .array([.integer(1), .integer(1)]))
        #expect(strings(try run(ClusterScripts.check, at: 2, ["444444", "other-device"])) == ["pending"])
        #expect(try run(ClusterScripts.purge, at: 3, ["alice-device"]) == .array([.integer(0), .integer(0)]))
    }

    // MARK: - Hub

    func makeRoom(_ room: String) throws {
        _ = try run(ClusterScripts.create, at: 0, ["555555", "alice-device", String(t0 + 600_000), "100000"])
        _ = try run(ClusterScripts.accept, at: 0, ["555555", "bobby-device", "a", "10", "60000", room])
        for instance in ["ia", "ib", "ic"] { _ = try send(["SET", "t:inst:" + instance, "1", "PX", "600000"]) }
    }

    func inbox(_ instance: String) throws -> [[String: String]] {
        (try send(["XRANGE", "t:inbox:" + instance, "-", "+"]).elements ?? []).map { entry in
            let list = entry.elements?.last?.elements?.compactMap(\.string) ?? []
            return Dictionary(uniqueKeysWithValues: stride(from: 0, to: list.count - 1, by: 2).map { (list[$0], list[$0 + 1]) })
        }
    }

    func applied(_ reply: RESPValue) -> Int64? { reply.elements?.first?.integer }

    /// The last inbox entry id of `instance`.
    func lastEntry(_ instance: String) throws -> String? {
        try send(["XREVRANGE", "t:inbox:" + instance, "+", "-", "COUNT", "1"]).elements?.first?.elements?.first?.string
    }

    /// A hub command answers where its frames for the sender's instance end
    /// (a resend: the inbox's end), so the instance can hold its own replies behind them.
    @Test func aHubCommandNamesTheLastInboxEntryItMadeForItsInstance() throws {
        let room = String(repeating: "ab", count: 24)
        try makeRoom(room)
        let join = try run(ClusterHubScripts.join, at: 1, ["ia/1", "1", room])
        #expect(join.elements?.last?.string == (try lastEntry("ia")))
        // Bob's join on ib also puts room_ready in ia's inbox.
        let second = try run(ClusterHubScripts.join, at: 2, ["ib/2", "1", room])
        #expect(second.elements?.last?.string == (try lastEntry("ib")))
        // A relay to the other instance puts nothing in the sender's.
        let relay = try run(ClusterHubScripts.relay, at: 3, ["ia/1", "2", "webrtc_offer", "aa", "{}"])
        #expect(relay == .array([.integer(1), .bulk(Array("0-0".utf8))]))
        let resent = try run(ClusterHubScripts.join, at: 4, ["ia/1", "1", room])
        let end = try lastEntry("ia")
        #expect(applied(resent) == 0 && resent.elements?.last?.string == end)
    }

    /// An instance away from Redis longer than its heartbeat TTL: a join
    /// frees its member's seat; when it beats again the member takes the
    /// seat back, both members hear room_ready, and relays flow again.
    @Test func aLostSeatIsTakenBackWhenItsInstanceBeatsAgain() throws {
        let room = String(repeating: "5a", count: 24)
        try makeRoom(room)
        _ = try run(ClusterHubScripts.join, at: 1, ["ia/1", "1", room])
        _ = try run(ClusterHubScripts.join, at: 2, ["ib/2", "1", room])
        #expect(try run(ClusterHubScripts.beat, at: 3, ["ia", "8000"]) == .integer(0))
        _ = try send(["DEL", "t:inst:ia"])
        // While ia is away, relays to its member still go to its inbox.
        _ = try run(ClusterHubScripts.relay, at: 4, ["ib/2", "2", "chat", "bb", "{}"])
        #expect(try inbox("ia").last?["ev"] == "relay")
        // Bob rejoins (as a client that reconnected would): Alice's seat is freed.
        _ = try run(ClusterHubScripts.join, at: 5, ["ib/2", "3", room])
        #expect(try inbox("ib").last.map { "\($0["ev"] ?? "") \($0["n"] ?? "")" } == "joined 1")
        #expect(try send(["HGET", "t:seats:" + room, "0"]).isNull)
        // ia beats again: Alice is seated again, both hear room_ready.
        #expect(try run(ClusterHubScripts.beat, at: 6, ["ia", "8000"]) == .integer(1))
        #expect(try send(["HGET", "t:seats:" + room, "0"]) == .bulk(Array("ia/1".utf8)))
        #expect(try inbox("ia").last.map { "\($0["ev"] ?? "") \($0["init"] ?? "")" } == "ready 1")
        #expect(try inbox("ib").last.map { "\($0["ev"] ?? "") \($0["init"] ?? "")" } == "ready 0")
        _ = try run(ClusterHubScripts.relay, at: 7, ["ia/1", "2", "chat", "aa", "{}"])
        #expect(try inbox("ib").last?["ev"] == "relay")
        // Only once: the next beat finds its key and takes nothing back.
        #expect(try run(ClusterHubScripts.beat, at: 8, ["ia", "8000"]) == .integer(0))
    }

    /// A seat someone else took meanwhile is not taken back: the member is
    /// out, as on a single server whose member missed its heartbeat.
    @Test func aLostSeatSomeoneTookStaysTaken() throws {
        let room = String(repeating: "6b", count: 24)
        try makeRoom(room)
        _ = try run(ClusterHubScripts.join, at: 1, ["ia/1", "1", room])
        _ = try run(ClusterHubScripts.join, at: 2, ["ib/2", "1", room])
        _ = try send(["DEL", "t:inst:ia"])
        _ = try run(ClusterHubScripts.join, at: 3, ["ic/3", "1", room])
        #expect(try inbox("ib").suffix(2).map { $0["ev"] ?? "" } == ["peer_disconnected", "ready"])
        #expect(try run(ClusterHubScripts.beat, at: 4, ["ia", "8000"]) == .integer(0))
        #expect(try send(["HGET", "t:seats:" + room, "0"]) == .bulk(Array("ic/3".utf8)))
        _ = try run(ClusterHubScripts.relay, at: 5, ["ia/1", "2", "chat", "aa", "{}"])
        #expect(try inbox("ia").last?["code"] == "not_in_room")
        // Its disconnect tells nobody: it held no seat.
        let before = try inbox("ib").count
        _ = try run(ClusterHubScripts.disconnect, at: 6, ["ia/1", "3"])
        #expect(try inbox("ib").count == before)
    }

    @Test func aResentHubCommandIsAppliedOnce() throws {
        let room = String(repeating: "ef", count: 24)
        try makeRoom(room)
        #expect(applied(try run(ClusterHubScripts.join, at: 1, ["ia/1", "1", room])) == 1)
        #expect(applied(try run(ClusterHubScripts.join, at: 2, ["ib/7", "1", room])) == 1)
        #expect(try inbox("ia").map { $0["ev"] ?? "" } == ["joined", "ready"])
        #expect(try inbox("ib").map { $0["ev"] ?? "" } == ["joined", "ready"])
        #expect(applied(try run(ClusterHubScripts.relay, at: 3, ["ia/1", "2", "webrtc_offer", "00000000000000aa", #"{"sdp":"v=0"}"#])) == 1)
        // The same command again (its reply was lost with the connection): skipped.
        #expect(applied(try run(ClusterHubScripts.relay, at: 4, ["ia/1", "2", "webrtc_offer", "00000000000000aa", #"{"sdp":"v=0"}"#])) == 0)
        #expect(applied(try run(ClusterHubScripts.relay, at: 5, ["ia/1", "3", "ice_candidate", "00000000000000aa", #"{"candidate":null}"#])) == 1)
        let relayed = try inbox("ib").filter { $0["ev"] == "relay" }
        #expect(relayed.map { $0["type"] ?? "" } == ["webrtc_offer", "ice_candidate"])
        #expect(relayed.first?["to"] == "7" && relayed.first?["room"] == room && relayed.first?["from"] == "00000000000000aa")
        let message = ClusterHub.message("relay", try #require(relayed.first))
        #expect(message?.json.serialized == #"{"type":"webrtc_offer","sdp":"v=0","from":"00000000000000aa","roomId":"\#(room)"}"#)
    }

    @Test func aSeatOfADeadInstanceIsFreeAndThePeerHearsOfIt() throws {
        let room = String(repeating: "12", count: 24)
        try makeRoom(room)
        _ = try run(ClusterHubScripts.join, at: 1, ["ia/1", "1", room])
        _ = try run(ClusterHubScripts.join, at: 2, ["ib/2", "1", room])
        // A third member while both live: room_full, and both holders are probed.
        _ = try run(ClusterHubScripts.join, at: 3, ["ic/3", "1", room])
        #expect(try inbox("ic").map { $0["ev"] ?? "" } == ["full"])
        #expect(try inbox("ia").last?["ev"] == "probe")
        // Instance ia dies (its heartbeat key expires): its seat, the
        // initiator's, is free; the member who stayed hears peer_disconnected.
        _ = try send(["DEL", "t:inst:ia"])
        _ = try run(ClusterHubScripts.join, at: 4, ["ic/3", "2", room])
        let events = try inbox("ic").map { "\($0["ev"] ?? "") \($0["init"] ?? "")" }
        #expect(events == ["full ", "joined 1", "ready 1"])
        #expect(try inbox("ib").suffix(2).map { $0["ev"] ?? "" } == ["peer_disconnected", "ready"])
    }

    @Test func relayingAloneOrOutsideARoomIsAnError() throws {
        let room = String(repeating: "34", count: 24)
        try makeRoom(room)
        _ = try run(ClusterHubScripts.relay, at: 1, ["ia/1", "1", "webrtc_offer", "aa", "{}"])
        _ = try run(ClusterHubScripts.join, at: 2, ["ia/1", "2", room])
        _ = try run(ClusterHubScripts.relay, at: 3, ["ia/1", "3", "webrtc_offer", "aa", "{}"])
        _ = try run(ClusterHubScripts.leave, at: 4, ["ia/1", "4"])
        let events = try inbox("ia").map { "\($0["ev"] ?? "") \($0["code"] ?? $0["room"] ?? "")" }
        #expect(events == ["error not_in_room", "joined \(room)", "error no_peer", "left \(room)"])
        _ = try run(ClusterHubScripts.join, at: 5, ["ia/1", "5", String(repeating: "00", count: 24)])
        #expect(try inbox("ia").last?["code"] == "room_not_found")
    }

    /// The embedded relays' one secret (`ClusterRelaySecret`): the first
    /// offer makes the key and every later offer reads it; after a flush the
    /// first instance to beat puts back the secret they all hold; a value an
    /// instance could not have made is reported, not adopted.
    @Test func theFirstRelaySecretOfferedIsEveryInstancesAndAFlushedOneComesBackTheSame() throws {
        let (a, b) = ([UInt8](repeating: 0xA1, count: 32), [UInt8](repeating: 0xB2, count: 32))
        func offer(_ secret: [UInt8]) throws -> ClusterRelaySecret.Found {
            let commands = ClusterRelaySecret.offer(secret, prefix: prefix)
            _ = try send(commands[0])
            return ClusterRelaySecret.parse(try send(commands[1]))
        }
        #expect(try offer(a) == .secret(a))
        #expect(try offer(b) == .secret(a))
        _ = try send(["FLUSHALL"])
        #expect(try offer(a) == .secret(a))
        #expect(try offer(b) == .secret(a))
        #expect(try send(["TTL", "t:turn-secret"]) == .integer(-1))
        _ = try send(["SET", "t:turn-secret", "not a hex secret"])
        #expect(try offer(a) == .unusable)
        _ = try send(["SET", "t:turn-secret", String(repeating: "ab", count: 8)])
        #expect(try offer(a) == .unusable)
        _ = try send(["DEL", "t:turn-secret"])
        #expect(ClusterRelaySecret.parse(try send(["GET", "t:turn-secret"])) == .missing)
    }
}

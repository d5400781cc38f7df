import HTTP1
import Signaling
@testable import SignalingServer
import Testing

@Test func acceptAnswersAFreshRoomIDOf48LowercaseHex() throws {
    let f = try Fixture()
    f.create()
    let response = f.accept()
    #expect(response.status == 200)
    #expect(response.contentType == "application/json")
    let id = response.json?["roomid"]?.stringValue ?? ""
    #expect(RoomID(id) != nil)
    let other = try Fixture(seed: 8)
    other.create()
    #expect(other.accept().json?["roomid"]?.stringValue != id)
}

@Test func acceptValidatesItsFields() throws {
    let f = try Fixture()
    let cases: [(String, String)] = [
        (#"{"client2":"bob-device"}"#, "missing_joinid"),
        (#"{"joinid":"123456"}"#, "missing_client2"),
        (#"{"joinid":"123456","client2":null}"#, "missing_client2"),
        (#"{"joinid":123456,"client2":"bob-device"}"#, "invalid_joinid"),
        (#"{"joinid":"123456","client2":"bob"}"#, "invalid_client2"),
    ]
    for (body, code) in cases {
        let response = f.send("POST", "/api/rooms/accept", body)
        #expect(response.status == 400)
        #expect(response.errorCode == code, "\(body)")
    }
}

@Test func acceptOfAnUnknownOrExpiredCodeIsNotFound() throws {
    let f = try Fixture()
    #expect(f.accept("654321").errorCode == "not_found_or_expired")
    #expect(f.accept("654321").status == 404)
    f.create(expires: 60)
    f.advance(seconds: 60)
    #expect(f.accept().errorCode == "not_found_or_expired")
}

@Test func secondAcceptIsRejectedWithConflictAndNeverOverwrites() throws {
    let f = try Fixture()
    let id = f.acceptedRoom()
    let second = f.accept(client2: "mallory-device")
    #expect(second.status == 409)
    #expect(second.errorCode == "already_accepted")
    let room = f.send("GET", "/api/rooms?roomid=\(id)")
    #expect(room.json?["client2"]?.stringValue == Fixture.bob)
    #expect(f.accept(client2: Fixture.bob).status == 409)
}

@Test func tenMissesPerMinuteRateLimitAnAddressIncludingRealCodes() throws {
    let f = try Fixture()
    f.create("111111")
    for i in 0..<10 {
        #expect(f.accept(String(200_000 + i)).status == 404)
    }
    let limited = f.accept("999999")
    #expect(limited.status == 429)
    #expect(limited.errorCode == "rate_limited")
    #expect(limited.headers["Retry-After"] == "60")
    // A real code gets the same answer, so it reveals nothing.
    let real = f.accept("111111")
    #expect(real.status == 429)
    #expect(real.headers["Retry-After"] == "60")
    // Even a malformed body is answered 429.
    #expect(f.send("POST", "/api/rooms/accept", "{}").status == 429)
    // Another address is not affected.
    #expect(f.accept("111111", address: "198.51.100.7").status == 200)
}

@Test func rateLimitLiftsOneWindowAfterTheOldestMiss() throws {
    let f = try Fixture()
    f.create("111111")
    #expect(f.accept("000000").status == 404)
    f.advance(seconds: 30)
    for _ in 0..<9 { #expect(f.accept("000000").status == 404) }
    let limited = f.accept("111111")
    #expect(limited.status == 429)
    #expect(limited.headers["Retry-After"] == "30")
    f.advance(seconds: 29)
    #expect(f.accept("111111").headers["Retry-After"] == "1")
    f.advance(seconds: 1)
    #expect(f.accept("111111").status == 200)
}

@Test func onlyMissesCountTowardsTheRateLimit() throws {
    let f = try Fixture()
    f.create("111111")
    #expect(f.accept("111111").status == 200)
    for _ in 0..<20 { #expect(f.accept("111111").status == 409) }
    for _ in 0..<20 { #expect(f.send("POST", "/api/rooms/accept", #"{"joinid":"1"}"#).status == 400) }
    #expect(f.accept("222222").status == 404)
}

@Test func rateLimiterForgetsIdleAddressesOnSweep() throws {
    let f = try Fixture()
    for i in 0..<50 { _ = f.accept("000000", address: "10.0.0.\(i)") }
    #expect(f.registry.rateLimiter.trackedClientCount == 50)
    f.advance(seconds: 61)
    try f.registry.sweep(now: f.now)
    #expect(f.registry.rateLimiter.trackedClientCount == 0)
}

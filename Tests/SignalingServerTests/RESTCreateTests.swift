import HTTP1
@testable import SignalingServer
import Testing
import Wire

@Test func createAnswers201WithExpiryInISOForm() throws {
    let f = try Fixture()
    f.now = UnixTime(milliseconds: 1_795_428_000_000)  // 2026-11-23T10:00:00.000Z
    let response = f.create(expires: 600)
    #expect(response.status == 201)
    #expect(response.contentType == "application/json")
    #expect(response.body == Array(#"{"ok":true,"exp":"2026-11-23T10:10:00.000Z"}"#.utf8))
}

@Test func createReportsMissingFieldsBeforeInvalidOnes() throws {
    let f = try Fixture()
    let cases: [(String, String)] = [
        (#"{"expiresInSeconds":600,"client1":"alice-device"}"#, "missing_joinid"),
        (#"{"joinid":null,"expiresInSeconds":600,"client1":"alice-device"}"#, "missing_joinid"),
        (#"{"joinid":"","expiresInSeconds":600,"client1":"alice-device"}"#, "missing_joinid"),
        (#"{"joinid":"123456","expiresInSeconds":600}"#, "missing_client1"),
        (#"{"joinid":"123456","expiresInSeconds":600,"client1":""}"#, "missing_client1"),
        (#"{"joinid":"123456","client1":"alice-device"}"#, "missing_expiresInSeconds"),
        (#"{"joinid":"123456","expiresInSeconds":null,"client1":"alice-device"}"#, "missing_expiresInSeconds"),
        (#"{"joinid":"12345x","client1":"alice-device"}"#, "missing_expiresInSeconds"),
        (#"{"joinid":123456,"expiresInSeconds":600,"client1":"alice-device"}"#, "invalid_joinid"),
        (#"{"joinid":"12345","expiresInSeconds":600,"client1":"alice-device"}"#, "invalid_joinid"),
        (#"{"joinid":"1234567","expiresInSeconds":600,"client1":"alice-device"}"#, "invalid_joinid"),
        (#"{"joinid":"12345x","expiresInSeconds":1,"client1":"bad"}"#, "invalid_joinid"),
        (#"{"joinid":"123456","expiresInSeconds":59,"client1":"alice-device"}"#, "invalid_expiresInSeconds"),
        (#"{"joinid":"123456","expiresInSeconds":86401,"client1":"alice-device"}"#, "invalid_expiresInSeconds"),
        (#"{"joinid":"123456","expiresInSeconds":600.5,"client1":"alice-device"}"#, "invalid_expiresInSeconds"),
        (#"{"joinid":"123456","expiresInSeconds":"600","client1":"alice-device"}"#, "invalid_expiresInSeconds"),
        (#"{"joinid":"123456","expiresInSeconds":0,"client1":"alice-device"}"#, "invalid_expiresInSeconds"),
        (#"{"joinid":"123456","expiresInSeconds":600,"client1":"short"}"#, "invalid_client1"),
        (#"{"joinid":"123456","expiresInSeconds":600,"client1":"has space!"}"#, "invalid_client1"),
        (#"{"joinid":"123456","expiresInSeconds":600,"client1":12345678}"#, "invalid_client1"),
    ]
    for (body, code) in cases {
        let response = f.send("POST", "/api/rooms", body)
        #expect(response.status == 400, "\(body)")
        #expect(response.errorCode == code, "\(body)")
        #expect(response.contentType == "application/json")
    }
    #expect(f.registry.roomCount == 0)
}

@Test func createAcceptsTheExpiryBoundsAndIgnoresUnknownFields() throws {
    let f = try Fixture()
    #expect(f.send("POST", "/api/rooms", #"{"joinid":"000001","expiresInSeconds":60,"client1":"alice-device","x":[1]}"#).status == 201)
    #expect(f.send("POST", "/api/rooms", #"{"joinid":"000002","expiresInSeconds":86400,"client1":"alice-device"}"#).status == 201)
    #expect(f.send("POST", "/api/rooms", #"{"joinid":"000003","expiresInSeconds":600.0,"client1":"alice-device"}"#).status == 201)
}

@Test func bodiesThatAreNotJSONObjectsAreInvalidJSON() throws {
    let f = try Fixture()
    for body in ["", "{", "[]", "\"x\"", "42", "null", "{\"joinid\":}", "\u{FF}"] {
        for target in ["/api/rooms", "/api/rooms/accept", "/api/rooms/check", "/api/user/purge"] {
            let response = f.send("POST", target, body)
            #expect(response.status == 400)
            #expect(response.errorCode == "invalid_json", "\(target) \(body)")
        }
        #expect(f.send("DELETE", "/api/rooms", body).errorCode == "invalid_json")
    }
}

@Test func aLiveJoinCodeCannotBeCreatedTwice() throws {
    let f = try Fixture()
    #expect(f.create(client1: "alice-device").status == 201)
    let again = f.create(client1: "other-device")
    #expect(again.status == 409)
    #expect(again.errorCode == "joinid_in_use")
    _ = f.accept()
    #expect(f.create().errorCode == "joinid_in_use")
}

@Test func anExpiredJoinCodeCanBeCreatedAgain() throws {
    let f = try Fixture()
    f.create(expires: 60)
    f.advance(seconds: 60)
    #expect(f.create(client1: "carol-device").status == 201)
    #expect(f.check(client1: "carol-device") == .respond(.noContent))
}

@Test func aStoreFailureIsAnInternalErrorAndChangesNothing() throws {
    let f = try Fixture()
    f.store.failWrites = RoomStoreError("disk full")
    let response = f.create()
    #expect(response.status == 500)
    #expect(response.errorCode == "internal_error")
    #expect(f.registry.roomCount == 0)
    f.store.failWrites = nil
    #expect(f.create().status == 201)
}

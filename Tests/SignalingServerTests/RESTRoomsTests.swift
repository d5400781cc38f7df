import HTTP1
import Signaling
@testable import SignalingServer
import Testing

@Test func getRoomAnswersItsClients() throws {
    let f = try Fixture()
    let id = f.acceptedRoom()
    let response = f.send("GET", "/api/rooms?roomid=\(id)")
    #expect(response.status == 200)
    #expect(response.body == Array(#"{"roomid":"\#(id)","client1":"\#(Fixture.alice)","client2":"\#(Fixture.bob)"}"#.utf8))
}

@Test func getRoomWithoutRoomIDIsMissingAndUnknownIsNotFound() throws {
    let f = try Fixture()
    for target in ["/api/rooms", "/api/rooms?roomid=", "/api/rooms?other=1"] {
        let response = f.send("GET", target)
        #expect(response.status == 400)
        #expect(response.errorCode == "missing_roomid")
    }
    for id in [String(repeating: "a", count: 48), "nothex", String(repeating: "A", count: 48)] {
        let response = f.send("GET", "/api/rooms?roomid=\(id)")
        #expect(response.status == 404)
        #expect(response.errorCode == "not_found")
    }
}

@Test func expiredRoomIsNotFoundEvenBeforeTheSweep() throws {
    let f = try Fixture()
    let id = f.acceptedRoom()
    f.advance(seconds: 600)
    #expect(f.send("GET", "/api/rooms?roomid=\(id)").status == 404)
    #expect(f.registry.isJoinable(RoomID(id)!, now: f.now) == false)
}

@Test func deleteRemovesTheRoomOnce() throws {
    let f = try Fixture()
    let id = f.acceptedRoom()
    let deleted = f.send("DELETE", "/api/rooms", #"{"roomid":"\#(id)"}"#)
    #expect(deleted.status == 200)
    #expect(deleted.body == Array(#"{"ok":true}"#.utf8))
    #expect(f.send("DELETE", "/api/rooms", #"{"roomid":"\#(id)"}"#).errorCode == "not_found")
    #expect(f.send("GET", "/api/rooms?roomid=\(id)").status == 404)
    // The code is free again.
    #expect(f.create().status == 201)
    #expect(f.store.rooms.count == 1)
}

@Test func deleteWithoutRoomIDIsMissing() throws {
    let f = try Fixture()
    #expect(f.send("DELETE", "/api/rooms", "{}").errorCode == "missing_roomid")
    #expect(f.send("DELETE", "/api/rooms", #"{"roomid":""}"#).errorCode == "missing_roomid")
    #expect(f.send("DELETE", "/api/rooms", #"{"roomid":"zz"}"#).status == 404)
}

@Test func purgeCountsAcceptedAndPendingRoomsSeparately() throws {
    let f = try Fixture()
    _ = f.acceptedRoom("111111")
    f.create("222222")
    f.create("333333", client1: "carol-device")
    _ = f.accept("333333", client2: Fixture.alice)
    f.create("444444", client1: "dave-device-9")
    let response = f.send("POST", "/api/user/purge", #"{"deviceIds":["\#(Fixture.alice)","unknown-device"]}"#)
    #expect(response.status == 200)
    #expect(response.body == Array(#"{"success":true,"deviceIdCount":2,"roomsDeleted":2,"pendingsDeleted":1}"#.utf8))
    #expect(f.registry.roomCount == 1)
    #expect(f.store.rooms.count == 1)
}

@Test func purgeRejectsAnythingButOneToAHundredValidIDs() throws {
    let f = try Fixture()
    let many = "[" + (0..<101).map { #""device-\#($0)-xx""# }.joined(separator: ",") + "]"
    let hundred = "[" + (0..<100).map { #""device-\#($0)-xx""# }.joined(separator: ",") + "]"
    for body in ["{}", #"{"deviceIds":null}"#, #"{"deviceIds":[]}"#, #"{"deviceIds":"alice-device"}"#,
                 #"{"deviceIds":["short"]}"#, #"{"deviceIds":["alice-device",7]}"#, #"{"deviceIds":\#(many)}"#] {
        let response = f.send("POST", "/api/user/purge", body)
        #expect(response.status == 400)
        #expect(response.errorCode == "invalid_deviceIds", "\(body.prefix(40))")
    }
    #expect(f.send("POST", "/api/user/purge", #"{"deviceIds":\#(hundred)}"#).status == 200)
}

@Test func sweepNeverLosesAnAcceptedRoomBeforeItsExpiry() throws {
    let f = try Fixture()
    f.create(expires: 60)
    f.advance(seconds: 59)
    let id = try #require(RoomID(f.accept().json?["roomid"]?.stringValue ?? ""))
    #expect(try f.registry.sweep(now: f.now) == 0)
    #expect(f.registry.isJoinable(id, now: f.now))
    #expect(f.send("GET", "/api/rooms?roomid=\(id.rawValue)").status == 200)
    f.advance(seconds: 1)
    #expect(try f.registry.sweep(now: f.now) == 1)
    #expect(f.store.rooms.isEmpty)
}

@Test func sweepRemovesOnlyExpiredRooms() throws {
    let f = try Fixture()
    f.create("111111", expires: 60)
    f.create("222222", expires: 120)
    _ = f.acceptedRoom("333333")
    f.advance(seconds: 90)
    #expect(try f.registry.sweep(now: f.now) == 1)
    #expect(f.registry.roomCount == 2)
    #expect(f.check("222222") == .respond(.noContent))
}

import Signaling
@testable import SignalingServer
import Testing
import TestSupport
import Wire

/// `POST /api/rooms` with `"group":true` (WireProtocol §2b): sizes, admission
/// up to `max`, member ids, and the two-member room left exactly as it was.

@Test func aGroupRoomIsCreatedWithItsSizeAndTheCreatorsMemberID() throws {
    let f = try Fixture()
    let created = f.createGroup(max: 4)
    #expect(created.status == 201)
    #expect(created.json?["group"] == true)
    #expect(created.json?["max"] == 4)
    #expect(created.json?["memberId"]?.stringValue.flatMap(MemberID.init) != nil)
    #expect(created.json?["exp"]?.stringValue != nil)
    #expect(f.createGroup("222222").json?["max"] == JSON(GroupSize.defaultMax), "8 unless asked")
}

@Test(arguments: [
    (#""group":"yes""#, "invalid_group"), (#""group":1"#, "invalid_group"),
    (#""group":true,"max":2"#, "invalid_max"), (#""group":true,"max":9"#, "invalid_max"),
    (#""group":true,"max":"4""#, "invalid_max"), (#""group":true,"max":3.5"#, "invalid_max"),
    (#""max":4"#, "invalid_max"), (#""group":false,"max":4"#, "invalid_max"),
])
func aGroupRequestThatIsNotOneIsRefusedNotMadeAPair(fields: String, code: String) throws {
    let f = try Fixture()
    let response = f.send("POST", "/api/rooms", #"{"joinid":"123456","expiresInSeconds":600,"client1":"alice-device-1",\#(fields)}"#)
    #expect(response.status == 400)
    #expect(response.errorCode == code)
    #expect(f.registry.roomCount == 0)
}

@Test func withoutAGroupRequestARoomIsExactlyTheTwoMemberRoom() throws {
    let f = try Fixture()
    #expect(f.send("POST", "/api/rooms", #"{"joinid":"123456","expiresInSeconds":600,"client1":"alice-device-1","group":false}"#).json?["group"] == nil)
    let accepted = f.accept()
    #expect(accepted.json?["group"] == nil && accepted.json?["memberId"] == nil)
    #expect(f.accept(client2: "carol-device-3").errorCode == "already_accepted")
    #expect(f.store.rooms.values.first?.group == nil)
}

@Test func membersJoinUpToMaxAndTheNextGetsRoomFull() throws {
    let f = try Fixture()
    let creator = try #require(f.createGroup(max: 4).json?["memberId"]?.stringValue)
    var ids: Set<String> = [creator]
    var roomIDs: Set<String> = []
    for device in ["bob-device-2", "carol-device-3", "dave-device-4"] {
        let accepted = f.accept(client2: device)
        #expect(accepted.status == 200)
        #expect(accepted.json?["group"] == true && accepted.json?["max"] == 4)
        ids.insert(try #require(accepted.json?["memberId"]?.stringValue))
        roomIDs.insert(try #require(accepted.json?["roomid"]?.stringValue))
    }
    #expect(ids.count == 4, "each member its own id")
    #expect(roomIDs.count == 1, "one room")
    let fifth = f.accept(client2: "erin-device-5")
    #expect(fifth.status == 409)
    #expect(fifth.errorCode == "room_full")
    let room = try #require(RoomID(roomIDs.first ?? ""))
    #expect(f.registry.roster(id: room, now: f.now)?.members.first?.memberID.rawValue == creator, "the creator is first")
    #expect(f.registry.roster(id: room, now: f.now)?.members.count == 4)
}

@Test func anAcceptRetriedByAMemberGetsTheSameAnswer() throws {
    let f = try Fixture()
    f.createGroup(max: 3)
    let first = f.accept(client2: "bob-device-2")
    let again = f.accept(client2: "bob-device-2")
    #expect(again.status == 200)
    #expect(again.json?["memberId"] == first.json?["memberId"])
    #expect(again.json?["roomid"] == first.json?["roomid"])
    #expect(f.accept(client2: Fixture.alice).errorCode == "already_accepted", "the creator learns the room from check")
    #expect(f.accept(client2: "carol-device-3").status == 200, "the retry took no seat")
}

@Test func theCreatorsCheckAnswersOnceTheFirstMemberAccepted() throws {
    let f = try Fixture()
    f.createGroup()
    guard case .respond(let pending) = f.check() else { Issue.record("long poll"); return }
    #expect(pending.status == 204)
    let roomid = f.accept().json?["roomid"]
    guard case .respond(let accepted) = f.check() else { Issue.record("long poll"); return }
    #expect(accepted.json?["roomid"] == roomid)
    _ = f.accept(client2: "carol-device-3")
    guard case .respond(let still) = f.check() else { Issue.record("long poll"); return }
    #expect(still.json?["roomid"] == roomid)
}

@Test func aGroupRoomShowsItsSizeButNotItsMembersDeviceIDs() throws {
    let f = try Fixture()
    f.createGroup(max: 5)
    let id = try #require(f.accept().json?["roomid"]?.stringValue)
    let shown = f.send("GET", "/api/rooms?roomid=\(id)")
    #expect(shown.json == ["roomid": .string(id), "group": true, "max": 5, "members": 2])
    #expect(!String(decoding: shown.body, as: UTF8.self).contains(Fixture.bob))
}

@Test func purgingAMemberKeepsTheGroupForTheOthersAndTheLastEndsIt() throws {
    let f = try Fixture()
    f.createGroup(max: 3)
    let id = try #require(f.accept().json?["roomid"]?.stringValue)
    let purgeBob = f.send("POST", "/api/user/purge", #"{"deviceIds":["\#(Fixture.bob)"]}"#)
    #expect(purgeBob.json?["roomsDeleted"] == 0)
    #expect(f.send("GET", "/api/rooms?roomid=\(id)").json?["members"] == 1)
    let purgeAlice = f.send("POST", "/api/user/purge", #"{"deviceIds":["\#(Fixture.alice)"]}"#)
    #expect(purgeAlice.json?["roomsDeleted"] == 1)
    #expect(f.send("GET", "/api/rooms?roomid=\(id)").status == 404)
}

@Test func aGroupRoomSurvivesARestartWithItsMembers() throws {
    let store = InMemoryRoomStore()
    let f = try Fixture(store: store)
    f.createGroup(max: 3)
    let id = try #require(f.accept().json?["roomid"]?.stringValue)
    let reopened = try RoomRegistry(store: store, random: SeededRandom(seed: 3))
    let roomID = try #require(RoomID(id))
    let roster = try #require(reopened.roster(id: roomID, now: f.now))
    #expect(roster.max == 3)
    #expect(roster.members.map(\.deviceID.rawValue) == [Fixture.alice, Fixture.bob])
}

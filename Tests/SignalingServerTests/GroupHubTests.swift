import Signaling
@testable import SignalingServer
import Testing
import Wire

/// A group room of `max` members, all admitted over REST, and one socket each.
private struct GroupScene {
    let f: Fixture
    let roomID: String
    let devices: [String]
    /// Member ids in admission order (the creator first).
    let ids: [MemberID]
    var hub: SignalingHub { f.hub }

    init(max: Int = 4, admitted: Int? = nil) throws {
        f = try Fixture()
        devices = ["alice-device-1", "bob-device-2", "carol-device-3", "dave-device-4", "erin-device-5", "fred-device-6", "gina-device-7", "hank-device-8"]
        var ids = [try #require(f.createGroup(max: max).json?["memberId"]?.stringValue.flatMap(MemberID.init))]
        var room = ""
        for device in devices[1..<(admitted ?? max)] {
            let accepted = f.accept(client2: device)
            ids.append(try #require(accepted.json?["memberId"]?.stringValue.flatMap(MemberID.init)))
            room = accepted.json?["roomid"]?.stringValue ?? ""
        }
        self.ids = ids
        roomID = room
        for n in 1...devices.count { _ = f.hub.connect(ConnectionID(UInt64(n))) }
    }

    func socket(_ n: Int) -> ConnectionID { ConnectionID(UInt64(n + 1)) }
    func send(_ n: Int, _ text: String) -> [Outbound] { hub.receive(socket(n), text: text, now: f.now) }
    /// Member `n` joins from socket `n` (or another socket).
    func join(_ n: Int, from socket: ConnectionID? = nil) -> [Outbound] {
        hub.receive(socket ?? self.socket(n), text: #"{"type":"join_room","roomId":"\#(roomID)","deviceId":"\#(devices[n])"}"#, now: f.now)
    }
    func to(_ n: Int, _ type: String = "webrtc_offer", extra: String = #","sdp":"v=0""#) -> String {
        #"{"type":"\#(type)","to":"\#(ids[n].rawValue)"\#(extra)}"#
    }
}

@Test func membersSeeWhoIsThereAndEachNewcomerIsAnnounced() throws {
    let s = try GroupScene(max: 4)
    #expect(s.join(0) == [Outbound(s.socket(0), .groupJoined(GroupJoined(roomId: s.roomID, memberId: s.ids[0], max: 4, members: [])))])
    #expect(s.join(0).first?.text.contains(#""group":true"#) == true, "a repeated join repeats the answer")
    let second = s.join(2)
    #expect(second == [
        Outbound(s.socket(2), .groupJoined(GroupJoined(roomId: s.roomID, memberId: s.ids[2], max: 4, members: [GroupPeer(memberId: s.ids[0], isInitiator: false)]))),
        Outbound(s.socket(0), .memberJoined(roomId: s.roomID, memberId: s.ids[2], isInitiator: true, userCount: 2)),
    ])
    let third = s.join(1)
    // Bob was admitted before Carol: he offers to her, Alice offers to him.
    #expect(third.first == Outbound(s.socket(1), .groupJoined(GroupJoined(
        roomId: s.roomID, memberId: s.ids[1], max: 4,
        members: [GroupPeer(memberId: s.ids[0], isInitiator: false), GroupPeer(memberId: s.ids[2], isInitiator: true)]))))
    #expect(third.count == 3)
    #expect(third.contains(Outbound(s.socket(0), .memberJoined(roomId: s.roomID, memberId: s.ids[1], isInitiator: true, userCount: 3))))
    #expect(third.contains(Outbound(s.socket(2), .memberJoined(roomId: s.roomID, memberId: s.ids[1], isInitiator: false, userCount: 3))))
}

@Test func aRelayReachesOnlyItsToWithTheSendersIDAsFrom() throws {
    let s = try GroupScene(max: 4)
    for n in 0..<4 { _ = s.join(n) }
    let out = s.send(1, s.to(3, extra: #","sdp":"v=0","from":"\#(s.ids[2].rawValue)""#))
    #expect(out.count == 1)
    #expect(out.first?.connection == s.socket(3))
    guard case .relayed(let type, let from, let room, let payload)? = out.first?.message else { Issue.record("not relayed"); return }
    #expect(type == "webrtc_offer" && from == s.ids[1].rawValue && room == s.roomID)
    #expect(payload.contains { $0.0 == "sdp" })
    let sent = try JSON.parse(out.first?.text ?? "")
    #expect(sent["from"]?.stringValue == s.ids[1].rawValue && sent["to"]?.stringValue == s.ids[3].rawValue)
    #expect(out.first?.text.contains(s.ids[2].rawValue) == false, "a client's from is never passed on")
    #expect(s.send(3, s.to(1, "ice_candidate", extra: #","candidate":{"candidate":""}"#)).map(\.connection) == [s.socket(1)])
}

@Test func aRelayWithoutToOrToAnOutsiderOrItselfIsRefused() throws {
    let s = try GroupScene(max: 4)
    for n in 0..<3 { _ = s.join(n) }
    #expect(s.send(0, #"{"type":"webrtc_offer","sdp":"x"}"#) == [Outbound(s.socket(0), .error(.missingTo))])
    #expect(s.send(0, #"{"type":"webrtc_offer","to":7,"sdp":"x"}"#) == [Outbound(s.socket(0), .error(.missingTo))])
    for stranger in ["0123456789abcdef", "not-an-id", s.ids[0].rawValue] {
        #expect(s.send(0, #"{"type":"chat_x","to":"\#(stranger)"}"#) == [Outbound(s.socket(0), .error(.unknownMember))])
    }
    #expect(s.send(0, s.to(3)) == [Outbound(s.socket(0), .error(.noPeer))], "admitted, not here yet")
    // A member of another room, seated there, is out of reach.
    let other = try #require(s.f.createGroup("654321", client1: "zed-device-9").json?["memberId"]?.stringValue)
    let otherRoom = try #require(s.f.accept("654321", client2: "yan-device-8").json?["roomid"]?.stringValue)
    _ = s.hub.receive(s.socket(6), text: #"{"type":"join_room","roomId":"\#(otherRoom)","deviceId":"zed-device-9"}"#, now: s.f.now)
    #expect(s.send(0, #"{"type":"chat_x","to":"\#(other)"}"#) == [Outbound(s.socket(0), .error(.unknownMember))])
    #expect(s.send(7, s.to(1)) == [Outbound(s.socket(7), .error(.notInRoom))])
}

@Test func onlyAnAdmittedDeviceTakesASeatAndNeverAnotherMembersHeldSeat() throws {
    let s = try GroupScene(max: 4, admitted: 3)
    #expect(s.join(3) == [Outbound(s.socket(3), .error(.notAMember))], "not admitted")
    #expect(s.send(3, #"{"type":"join_room","roomId":"\#(s.roomID)"}"#) == [Outbound(s.socket(3), .error(.notAMember))], "no device id")
    _ = s.join(1)
    #expect(s.join(1, from: s.socket(5)) == [Outbound(s.socket(5), .roomFull)], "the seat is held")
    #expect(s.hub.pollProbes() == [s.socket(1)], "its holder must prove it is alive")
    _ = s.hub.disconnect(s.socket(1))
    #expect(s.join(1, from: s.socket(5)).first?.message == .groupJoined(GroupJoined(roomId: s.roomID, memberId: s.ids[1], max: 4, members: [])))
}

@Test func aMemberLeavingOrDroppingIsAnnouncedAndTheRoomGoesOn() throws {
    let s = try GroupScene(max: 3)
    for n in 0..<3 { _ = s.join(n) }
    let left = s.send(0, #"{"type":"leave_room"}"#)
    #expect(left.first == Outbound(s.socket(0), .leftRoom(roomId: s.roomID)))
    #expect(left.count == 3)
    #expect(left.contains(Outbound(s.socket(1), .memberLeft(roomId: s.roomID, memberId: s.ids[0], reason: .left, userCount: 2))))
    #expect(left.contains(Outbound(s.socket(2), .memberLeft(roomId: s.roomID, memberId: s.ids[0], reason: .left, userCount: 2))))
    #expect(s.hub.disconnect(s.socket(2)) == [Outbound(s.socket(1), .memberLeft(roomId: s.roomID, memberId: s.ids[2], reason: .disconnected, userCount: 1))])
    #expect(s.send(1, s.to(0)) == [Outbound(s.socket(1), .error(.noPeer))])
    // The creator comes back: the room is still there.
    let back = s.join(0)
    #expect(back.first?.message == .groupJoined(GroupJoined(roomId: s.roomID, memberId: s.ids[0], max: 3, members: [GroupPeer(memberId: s.ids[1], isInitiator: true)])))
    let room = try #require(RoomID(s.roomID))
    #expect(s.f.registry.roster(id: room, now: s.f.now) != nil)
}

@Test func theRoomEndsWhenEveryMemberHasLeftButNotWhenOneOnlyDropped() throws {
    let s = try GroupScene(max: 3)
    let room = try #require(RoomID(s.roomID))
    for n in 0..<3 { _ = s.join(n) }
    _ = s.hub.disconnect(s.socket(2))
    _ = s.hub.connect(s.socket(2))
    _ = s.send(1, #"{"type":"leave_room"}"#)
    _ = s.send(0, #"{"type":"leave_room"}"#)
    #expect(s.f.registry.roster(id: room, now: s.f.now) != nil, "Carol only dropped: she may come back")
    _ = s.join(2)
    _ = s.join(1)
    _ = s.send(2, #"{"type":"leave_room"}"#)
    _ = s.send(1, #"{"type":"leave_room"}"#)
    #expect(s.f.registry.roster(id: room, now: s.f.now) != nil, "Alice left only before the room last emptied")
    for n in 0..<3 { _ = s.join(n) }
    for n in 0..<3 { _ = s.send(n, #"{"type":"leave_room"}"#) }
    #expect(s.f.registry.roster(id: room, now: s.f.now) == nil)
    #expect(s.f.accept(client2: "dave-device-4").status == 404, "its code is free again")
}

@Test func aTwoMemberRoomIgnoresADeviceIDAndStaysAPair() throws {
    let f = try Fixture()
    let room = f.acceptedRoom()
    for n in 1...3 { _ = f.hub.connect(ConnectionID(UInt64(n))) }
    let join = #"{"type":"join_room","roomId":"\#(room)","deviceId":"\#(Fixture.alice)"}"#
    #expect(f.hub.receive(ConnectionID(1), text: join, now: f.now) == [Outbound(ConnectionID(1), .roomJoined(roomId: room, userCount: 1, isInitiator: true, ready: false))])
    _ = f.hub.receive(ConnectionID(2), text: #"{"type":"join_room","roomId":"\#(room)"}"#, now: f.now)
    #expect(f.hub.receive(ConnectionID(3), text: join, now: f.now) == [Outbound(ConnectionID(3), .roomFull)])
    let relayed = f.hub.receive(ConnectionID(1), text: #"{"type":"webrtc_offer","sdp":"x","to":"whoever"}"#, now: f.now)
    #expect(relayed.map(\.connection) == [ConnectionID(2)], "a pair ignores to")
}

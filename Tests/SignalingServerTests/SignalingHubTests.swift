import Signaling
@testable import SignalingServer
import Testing
import Wire

/// A hub over a fixture with one accepted room, and three connections.
private struct HubScene {
    let f: Fixture
    let roomID: String
    let a = ConnectionID(1), b = ConnectionID(2), c = ConnectionID(3)
    var hub: SignalingHub { f.hub }

    init() throws {
        f = try Fixture()
        roomID = f.acceptedRoom()
        for id in [a, b, c] { _ = f.hub.connect(id) }
    }

    func send(_ id: ConnectionID, _ text: String) -> [Outbound] { hub.receive(id, text: text, now: f.now) }
    func join(_ id: ConnectionID) -> [Outbound] { send(id, #"{"type":"join_room","roomId":"\#(roomID)"}"#) }
    func from(_ id: ConnectionID) -> String { hub.clientID(of: id) ?? "" }
}

@Test func connectSendsARandomClientID() throws {
    let f = try Fixture()
    let out = f.hub.connect(ConnectionID(1))
    let second = f.hub.connect(ConnectionID(2))
    guard case .connected(let id) = out.first?.message, case .connected(let other) = second.first?.message else {
        Issue.record("no connected message")
        return
    }
    #expect(DeviceID(id) != nil)
    #expect(id != other)
    #expect(out.first?.text == #"{"type":"connected","clientId":"\#(id)"}"#)
}

@Test func twoMembersJoinAndBothGetRoomReady() throws {
    let s = try HubScene()
    #expect(s.join(s.a) == [Outbound(s.a, .roomJoined(roomId: s.roomID, userCount: 1, isInitiator: true, ready: false))])
    #expect(s.join(s.b) == [
        Outbound(s.b, .roomJoined(roomId: s.roomID, userCount: 2, isInitiator: false, ready: true)),
        Outbound(s.a, .roomReady(roomId: s.roomID, userCount: 2, isInitiator: true)),
        Outbound(s.b, .roomReady(roomId: s.roomID, userCount: 2, isInitiator: false)),
    ])
}

@Test func aThirdMemberGetsRoomFull() throws {
    let s = try HubScene()
    _ = s.join(s.a)
    _ = s.join(s.b)
    #expect(s.join(s.c) == [Outbound(s.c, .roomFull)])
    #expect(s.join(s.c).first?.text == #"{"type":"room_full"}"#)
}

@Test func joinNeedsAnAcceptedUnexpiredRoom() throws {
    let s = try HubScene()
    s.f.create("999999")
    for roomId in ["nope", String(repeating: "0", count: 48)] {
        #expect(s.send(s.a, #"{"type":"join_room","roomId":"\#(roomId)"}"#) == [Outbound(s.a, .error(.roomNotFound))])
    }
    s.f.advance(seconds: 600)
    #expect(s.join(s.a) == [Outbound(s.a, .error(.roomNotFound))])
}

@Test func joinOfADeletedRoomIsRefusedButSeatedMembersStay() throws {
    let s = try HubScene()
    _ = s.join(s.a)
    _ = s.join(s.b)
    _ = s.f.send("DELETE", "/api/rooms", #"{"roomid":"\#(s.roomID)"}"#)
    #expect(s.send(s.a, #"{"type":"chat_message","text":"still here"}"#).count == 1)
    _ = s.hub.disconnect(s.b)
    #expect(s.join(s.c) == [Outbound(s.c, .error(.roomNotFound))])
}

@Test func relayAddsFromAndRoomIDAndKeepsEveryField() throws {
    let s = try HubScene()
    _ = s.join(s.a)
    _ = s.join(s.b)
    let offer = s.send(s.a, #"{"type":"webrtc_offer","sdp":"v=0\r\n","from":"spoofed","extra":{"k":[1,2]}}"#)
    #expect(offer.count == 1)
    #expect(offer.first?.connection == s.b)
    #expect(offer.first?.text == #"{"type":"webrtc_offer","sdp":"v=0\r\n","extra":{"k":[1,2]},"from":"\#(s.from(s.a))","roomId":"\#(s.roomID)"}"#)
    let candidate = s.send(s.b, #"{"type":"ice_candidate","candidate":{"candidate":"candidate:1 1 udp 1 1.2.3.4 5 typ host","sdpMLineIndex":0,"sdpMid":"0"}}"#)
    #expect(candidate.first?.connection == s.a)
    let decoded = candidate.first.flatMap { try? JSON.parse($0.text) }.flatMap(ServerMessage.init(json:))
    guard case .relayed("ice_candidate", let from, let roomId, let payload) = decoded else {
        Issue.record("not relayed")
        return
    }
    #expect(from == s.from(s.b))
    #expect(roomId == s.roomID)
    #expect(ICECandidatePayload(json: .object(payload))?.candidate == "candidate:1 1 udp 1 1.2.3.4 5 typ host")
    for type in ["webrtc_answer", "key_exchange", "chat_message", "chat_typing"] {
        #expect(s.send(s.a, #"{"type":"\#(type)"}"#).first?.connection == s.b)
    }
}

@Test func relayOutsideARoomOrAloneIsAnError() throws {
    let s = try HubScene()
    #expect(s.send(s.a, #"{"type":"webrtc_offer","sdp":"x"}"#) == [Outbound(s.a, .error(.notInRoom))])
    _ = s.join(s.a)
    #expect(s.send(s.a, #"{"type":"webrtc_offer","sdp":"x"}"#) == [Outbound(s.a, .error(.noPeer))])
}

@Test func leaveTellsTheSenderAndThePeer() throws {
    let s = try HubScene()
    #expect(s.send(s.a, #"{"type":"leave_room"}"#) == [Outbound(s.a, .leftRoom(roomId: nil))])
    #expect(s.send(s.a, #"{"type":"leave_room"}"#).first?.text == #"{"type":"left_room","roomId":null}"#)
    _ = s.join(s.a)
    _ = s.join(s.b)
    #expect(s.send(s.b, #"{"type":"leave_room"}"#) == [
        Outbound(s.b, .leftRoom(roomId: s.roomID)), Outbound(s.a, .peerLeft(roomId: s.roomID)),
    ])
    #expect(s.send(s.a, #"{"type":"chat_x"}"#) == [Outbound(s.a, .error(.noPeer))])
}

@Test func disconnectTellsThePeerAndFreesTheSeat() throws {
    let s = try HubScene()
    _ = s.join(s.a)
    _ = s.join(s.b)
    #expect(s.hub.disconnect(s.b) == [Outbound(s.a, .peerDisconnected(roomId: s.roomID))])
    #expect(s.join(s.c).first == Outbound(s.c, .roomJoined(roomId: s.roomID, userCount: 2, isInitiator: false, ready: true)))
    #expect(s.hub.disconnect(s.b).isEmpty)
    _ = s.hub.disconnect(s.a)
    _ = s.hub.disconnect(s.c)
    #expect(s.hub.connectionCount == 0)
    #expect(s.hub.occupiedRoomCount == 0)
}

@Test func reconnectingInitiatorTakesItsOldSeatAndRole() throws {
    let s = try HubScene()
    _ = s.join(s.a)
    _ = s.join(s.b)
    _ = s.hub.disconnect(s.a)
    let a2 = ConnectionID(10)
    _ = s.hub.connect(a2)
    #expect(s.join(a2) == [
        Outbound(a2, .roomJoined(roomId: s.roomID, userCount: 2, isInitiator: true, ready: true)),
        Outbound(s.b, .roomReady(roomId: s.roomID, userCount: 2, isInitiator: false)),
        Outbound(a2, .roomReady(roomId: s.roomID, userCount: 2, isInitiator: true)),
    ])
}

@Test func returningMemberGetsRoomFullUntilItsSeatFrees() throws {
    let s = try HubScene()
    _ = s.join(s.a)
    _ = s.join(s.b)
    #expect(s.join(s.c) == [Outbound(s.c, .roomFull)])
    _ = s.hub.disconnect(s.b)
    #expect(s.join(s.c).first == Outbound(s.c, .roomJoined(roomId: s.roomID, userCount: 2, isInitiator: false, ready: true)))
}

@Test func joiningTheSameRoomAgainRepeatsTheAnswer() throws {
    let s = try HubScene()
    _ = s.join(s.a)
    #expect(s.join(s.a) == [Outbound(s.a, .roomJoined(roomId: s.roomID, userCount: 1, isInitiator: true, ready: false))])
    #expect(s.hub.occupiedRoomCount == 1)
}

@Test func joiningAnotherRoomLeavesTheFirst() throws {
    let s = try HubScene()
    let other = s.f.acceptedRoom("777777")
    _ = s.join(s.a)
    _ = s.join(s.b)
    let out = s.send(s.b, #"{"type":"join_room","roomId":"\#(other)"}"#)
    #expect(out == [
        Outbound(s.a, .peerLeft(roomId: s.roomID)),
        Outbound(s.b, .roomJoined(roomId: other, userCount: 1, isInitiator: true, ready: false)),
    ])
}

@Test func errorsKeepTheConnectionUsable() throws {
    let s = try HubScene()
    #expect(s.send(s.a, "{oops") == [Outbound(s.a, .error(.invalidJSON))])
    #expect(s.send(s.a, #"{"type":"teleport"}"#) == [Outbound(s.a, .error(.unknownType))])
    #expect(s.send(s.a, #"{"type":"join_room"}"#) == [Outbound(s.a, .error(.invalidMessage))])
    #expect(s.send(s.a, "{\"type\":\"chat_x\",\"t\":\"" + String(repeating: "x", count: 70_000) + "\"}")
        == [Outbound(s.a, .error(.messageTooLarge))])
    #expect(s.send(s.a, #"{"type":"ping"}"#) == [Outbound(s.a, .pong)])
    #expect(s.join(s.a).count == 1)
    #expect(s.send(s.a, #"{"type":"pong"}"#).first?.text == #"{"type":"error","error":"unknown_type"}"#)
}

@Test func messagesFromUnknownConnectionsAreIgnored() throws {
    let s = try HubScene()
    #expect(s.send(ConnectionID(77), #"{"type":"ping"}"#).isEmpty)
    #expect(s.hub.disconnect(ConnectionID(77)).isEmpty)
}

@Test func tenThousandIdleConnectionsAreCheap() throws {
    let f = try Fixture()
    for i in 0..<10_000 { _ = f.hub.connect(ConnectionID(UInt64(i))) }
    #expect(f.hub.connectionCount == 10_000)
    for i in 0..<10_000 { _ = f.hub.disconnect(ConnectionID(UInt64(i))) }
    #expect(f.hub.connectionCount == 0)
}

/// A member back on a new socket while its old one silently holds the seat:
/// the holders are named for a liveness probe, nobody else is.
@Test func roomFullNamesTheSeatHoldersForAProbe() throws {
    let s = try HubScene()
    _ = s.join(s.a)
    _ = s.join(s.b)
    #expect(s.hub.pollProbes().isEmpty)
    _ = s.join(s.c)
    #expect(Set(s.hub.pollProbes()) == [s.a, s.b])
    #expect(s.hub.pollProbes().isEmpty)
}

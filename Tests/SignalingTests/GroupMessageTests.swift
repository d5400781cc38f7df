import Signaling
import Testing
import Wire

private let alice = MemberID("00000000000000a1")!
private let bob = MemberID("00000000000000b2")!

@Test func groupFramesEncodeExactlyAsTheProtocolAndDecodeBack() {
    let cases: [(ServerMessage, String)] = [
        (.groupJoined(GroupJoined(roomId: "R", memberId: bob, max: 4, members: [GroupPeer(memberId: alice, isInitiator: false)])),
         #"{"type":"room_joined","roomId":"R","userCount":2,"isInitiator":false,"ready":true,"group":true,"max":4,"memberId":"00000000000000b2","members":[{"memberId":"00000000000000a1","isInitiator":false}]}"#),
        (.memberJoined(roomId: "R", memberId: bob, isInitiator: true, userCount: 2),
         #"{"type":"member_joined","roomId":"R","memberId":"00000000000000b2","isInitiator":true,"userCount":2}"#),
        (.memberLeft(roomId: "R", memberId: alice, reason: .disconnected, userCount: 1),
         #"{"type":"member_left","roomId":"R","memberId":"00000000000000a1","reason":"disconnected","userCount":1}"#),
        (.error(.missingTo), #"{"type":"error","error":"missing_to"}"#),
    ]
    for (message, text) in cases {
        #expect(message.json.serialized == text)
        #expect(ServerMessage(json: (try? JSON.parse(text)) ?? .null) == message)
    }
}

@Test func groupFramesDecodeLenientlyButNeverBelieveAnImpossibleRoom() throws {
    let lenient = try JSON.parse(#"{"type":"member_left","roomId":"R","memberId":"00000000000000a1","reason":"eaten","new":1}"#)
    #expect(ServerMessage(json: lenient) == .memberLeft(roomId: "R", memberId: alice, reason: .left, userCount: 1))
    let skipsBadEntries = try JSON.parse(
        #"{"type":"room_joined","roomId":"R","group":true,"max":3,"memberId":"00000000000000b2","members":[{"memberId":"x"},7,{"memberId":"00000000000000a1","isInitiator":true}]}"#)
    #expect(ServerMessage(json: skipsBadEntries) == .groupJoined(GroupJoined(roomId: "R", memberId: bob, max: 3, members: [GroupPeer(memberId: alice, isInitiator: true)])))
    let eight = Array(repeating: #"{"memberId":"00000000000000a1"}"#, count: 8).joined(separator: ",")
    for refused in [
        #"{"type":"room_joined","roomId":"R","group":true,"max":9,"memberId":"00000000000000b2"}"#,
        #"{"type":"room_joined","roomId":"R","group":true,"max":8,"memberId":"00000000000000b2","members":[\#(eight)]}"#,
        #"{"type":"room_joined","roomId":"R","group":true,"max":4,"memberId":"B2"}"#,
        #"{"type":"member_joined","roomId":"R","memberId":"0000000000000000a1"}"#,
    ] {
        #expect(ServerMessage(json: try JSON.parse(refused)) == nil, "\(refused)")
    }
    let pair = try JSON.parse(#"{"type":"room_joined","roomId":"R","userCount":1,"isInitiator":true,"ready":false,"group":false}"#)
    #expect(ServerMessage(json: pair) == .roomJoined(roomId: "R", userCount: 1, isInitiator: true, ready: false))
}

@Test func aJoinWithADeviceIDIsAGroupJoinAndAMalformedOneIsRefused() throws {
    let device = try #require(DeviceID("alice-device-1"))
    #expect(ClientMessage.decode(text: #"{"type":"join_room","roomId":"r","deviceId":"alice-device-1"}"#) == .success(.joinGroup(roomId: "r", deviceId: device)))
    #expect(ClientMessage.joinGroup(roomId: "r", deviceId: device).json.serialized == #"{"type":"join_room","roomId":"r","deviceId":"alice-device-1"}"#)
    #expect(ClientMessage.decode(text: #"{"type":"join_room","roomId":"r","deviceId":null}"#) == .success(.joinRoom(roomId: "r")))
    for bad in [#""short""#, "12345678", #""has space in it""#] {
        #expect(ClientMessage.decode(text: #"{"type":"join_room","roomId":"r","deviceId":\#(bad)}"#) == .failure(.invalidMessage))
    }
    let offer = ClientMessage.decode(text: #"{"type":"webrtc_offer","to":"00000000000000b2","sdp":"v=0"}"#)
    #expect((try? offer.get())?.to == "00000000000000b2")
    #expect(ClientMessage.offer(sdp: "v=0").to == nil)
}

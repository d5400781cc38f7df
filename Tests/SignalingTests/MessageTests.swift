import TestSupport
import Signaling
import Testing
import Wire

private func parse(_ text: String) -> JSON {
    (try? JSON.parse(text)) ?? .null
}

@Test func clientMessagesEncodeWithProtocolFieldNames() {
    #expect(ClientMessage.joinRoom(roomId: "r").json.serialized == #"{"type":"join_room","roomId":"r"}"#)
    #expect(ClientMessage.leaveRoom.json.serialized == #"{"type":"leave_room"}"#)
    #expect(ClientMessage.ping.json.serialized == #"{"type":"ping"}"#)
    #expect(ClientMessage.offer(sdp: "v=0").json.serialized == #"{"type":"webrtc_offer","sdp":"v=0"}"#)
}

@Test func clientMessagesRoundTrip() {
    let messages: [ClientMessage] = [
        .joinRoom(roomId: "abc"), .leaveRoom, .ping, .offer(sdp: "x"), .answer(sdp: "y"),
        ICECandidatePayload(candidate: "candidate:1 1 udp 1 1.2.3.4 5 typ host").message,
        .relay(type: "key_exchange", payload: [("publicKey", "k")]),
        .relay(type: "chat_message", payload: [("text", "hi"), ("n", 3)]),
    ]
    for message in messages {
        #expect(ClientMessage(json: message.json) == message)
    }
}

@Test func clientDecodingNamesTheError() {
    #expect(ClientMessage.decode(text: "{not json") == .failure(.invalidJSON))
    #expect(ClientMessage.decode(text: "[1,2]") == .failure(.invalidJSON))
    #expect(ClientMessage.decode(text: #"{"roomId":"x"}"#) == .failure(.unknownType))
    #expect(ClientMessage.decode(text: #"{"type":7}"#) == .failure(.unknownType))
    #expect(ClientMessage.decode(text: #"{"type":"dance"}"#) == .failure(.unknownType))
    #expect(ClientMessage.decode(text: #"{"type":"chat_"}"#) == .failure(.unknownType))
    #expect(ClientMessage.decode(text: #"{"type":"join_room"}"#) == .failure(.invalidMessage))
    #expect(ClientMessage.decode(text: #"{"type":"join_room","roomId":"r","extra":1}"#) == .success(.joinRoom(roomId: "r")))
}

@Test func serverMessagesEncodeExactlyAsTheProtocol() {
    let cases: [(ServerMessage, String)] = [
        (.connected(clientId: "abc"), #"{"type":"connected","clientId":"abc"}"#),
        (.roomJoined(roomId: "R", userCount: 1, isInitiator: true, ready: false),
         #"{"type":"room_joined","roomId":"R","userCount":1,"isInitiator":true,"ready":false}"#),
        (.roomReady(roomId: "R", userCount: 2, isInitiator: false), #"{"type":"room_ready","roomId":"R","userCount":2,"isInitiator":false}"#),
        (.roomFull, #"{"type":"room_full"}"#),
        (.leftRoom(roomId: nil), #"{"type":"left_room","roomId":null}"#),
        (.leftRoom(roomId: "R"), #"{"type":"left_room","roomId":"R"}"#),
        (.peerLeft(roomId: "R"), #"{"type":"peer_left","roomId":"R"}"#),
        (.peerDisconnected(roomId: "R"), #"{"type":"peer_disconnected","roomId":"R"}"#),
        (.pong, #"{"type":"pong"}"#),
        (.error(.roomNotFound), #"{"type":"error","error":"room_not_found"}"#),
        (.relayed(type: "webrtc_offer", from: "c1", roomId: "R", payload: [("sdp", "v=0")]),
         #"{"type":"webrtc_offer","sdp":"v=0","from":"c1","roomId":"R"}"#),
    ]
    for (message, text) in cases {
        #expect(message.json.serialized == text)
        #expect(ServerMessage(json: parse(text)) == message)
    }
}

@Test func serverDecodingAcceptsInvisoVariants() {
    #expect(ServerMessage(json: parse(#"{"type":"connected","clientId":"x","server":"inviso"}"#)) == .connected(clientId: "x"))
    #expect(ServerMessage(json: parse(#"{"type":"peer_left","message":"Peer left"}"#)) == .peerLeft(roomId: nil))
    #expect(ServerMessage(json: parse(#"{"type":"peer_disconnected","message":"gone"}"#)) == .peerDisconnected(roomId: nil))
    #expect(ServerMessage(json: parse(#"{"type":"room_full","error":"Room is full"}"#)) == .roomFull)
    #expect(ServerMessage(json: parse(#"{"type":"room_ready","roomId":"R","userCount":2,"isInitiator":true,"message":"go"}"#))
        == .roomReady(roomId: "R", userCount: 2, isInitiator: true))
    #expect(ServerMessage(json: parse(#"{"type":"error","error":"Invalid JSON format"}"#))
        == .error(SignalingErrorCode(rawValue: "Invalid JSON format")))
    #expect(ServerMessage(json: parse(#"{"type":"error","message":"Room must have exactly 2 users for WebRTC"}"#))
        == .error(SignalingErrorCode(rawValue: "Room must have exactly 2 users for WebRTC")))
    #expect(ServerMessage(json: parse(#"{"type":"ice_candidate","candidate":{"candidate":"c"},"from":"f","roomId":"R"}"#))
        == .relayed(type: "ice_candidate", from: "f", roomId: "R", payload: [("candidate", ["candidate": "c"])]))
    #expect(ServerMessage(json: parse(#"{"type":"who_knows"}"#)) == nil)
    #expect(ServerMessage(json: parse(#"{"type":"room_joined"}"#)) == nil)
    #expect(ServerMessage(json: parse("[]")) == nil)
}

@Test func iceCandidatePayloadHasTheBrowserShape() {
    let payload = ICECandidatePayload(candidate: "candidate:1 1 udp 2122260223 10.0.0.2 5000 typ host")
    #expect(payload.json.serialized
        == #"{"candidate":{"candidate":"candidate:1 1 udp 2122260223 10.0.0.2 5000 typ host","sdpMLineIndex":0,"sdpMid":"0"}}"#)
    #expect(ICECandidatePayload(json: payload.json) == payload)
}

@Test func iceCandidateAcceptsAPrefixAndMarksEndOfCandidates() {
    let prefixed = ICECandidatePayload(json: parse(#"{"candidate":{"candidate":"a=candidate:1 1 udp 1 h 5 typ host","sdpMLineIndex":0,"sdpMid":"0"}}"#))
    #expect(prefixed?.candidate == "candidate:1 1 udp 1 h 5 typ host")
    #expect(ICECandidatePayload(json: parse(#"{"candidate":{"candidate":"","sdpMid":"0"}}"#))?.isEndOfCandidates == true)
    #expect(ICECandidatePayload(json: parse(#"{"candidate":null}"#))?.isEndOfCandidates == true)
    #expect(ICECandidatePayload(json: parse(#"{"candidate":{"candidate":null}}"#))?.isEndOfCandidates == true)
    #expect(ICECandidatePayload(json: parse(#"{"candidate":"candidate:x"}"#))?.candidate == "candidate:x")
    #expect(ICECandidatePayload(json: parse(#"{"candidate":5}"#)) == nil)
    #expect(ICECandidatePayload(candidate: nil).json.serialized == #"{"candidate":{"candidate":"","sdpMLineIndex":0,"sdpMid":"0"}}"#)
}

@Test func fuzzedTextsNeverCrashTheDecoders() {
    var rng = SeededRandom(seed: 42)
    let seeds = [
        #"{"type":"join_room","roomId":"abc"}"#, #"{"type":"ice_candidate","candidate":{"candidate":"c","sdpMLineIndex":0,"sdpMid":"0"}}"#,
        #"{"type":"room_joined","roomId":"R","userCount":2,"isInitiator":false,"ready":true}"#, #"{"type":"error","error":"x"}"#,
    ]
    let alphabet = Array(#"{}[]":,"type\\u0000 0123456789eE+-.truefalsenull"#.utf8) + [0xFF, 0xC3, 0x80]
    for i in 0..<5000 {
        var bytes = Array(seeds[i % seeds.count].utf8)
        switch i % 3 {
        case 0: bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &rng)))
        case 1:
            for _ in 0..<Int.random(in: 1...4, using: &rng) where !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = alphabet.randomElement(using: &rng) ?? 0
            }
        default: bytes = (0..<Int.random(in: 0...40, using: &rng)).map { _ in alphabet.randomElement(using: &rng) ?? 0 }
        }
        let text = String(decoding: bytes, as: UTF8.self)
        _ = ClientMessage.decode(text: text)
        if let json = try? JSON.parse(bytes) {
            _ = ServerMessage(json: json)
            _ = ICECandidatePayload(json: json)
        }
    }
}

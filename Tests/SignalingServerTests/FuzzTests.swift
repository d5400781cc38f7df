import TestSupport
import HTTP1
@testable import SignalingServer
import Testing

private let bodySeeds = [
    #"{"joinid":"123456","expiresInSeconds":600,"client1":"alice-device-1"}"#,
    #"{"joinid":"123456","client2":"bob-device-2"}"#,
    #"{"joinid":"123456","client1":"alice-device-1"}"#,
    #"{"deviceIds":["alice-device-1","bob-device-2"]}"#,
    #"{"roomid":"abababababababababababababababababababababababab"}"#,
]
private let alphabet = Array(#"{}[]":,\ 0123456789.eE+-truefalsenulljoinidclient"#.utf8) + [0x00, 0xFF, 0xC3, 0xA9]

private func mutate(_ seed: String, _ i: Int, _ rng: inout SeededRandom) -> [UInt8] {
    var bytes = Array(seed.utf8)
    switch i % 3 {
    case 0: return Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &rng)))
    case 1:
        for _ in 0..<Int.random(in: 1...5, using: &rng) where !bytes.isEmpty {
            bytes[Int.random(in: 0..<bytes.count, using: &rng)] = alphabet.randomElement(using: &rng) ?? 0
        }
        return bytes
    default: return (0..<Int.random(in: 0...64, using: &rng)).map { _ in alphabet.randomElement(using: &rng) ?? 0 }
    }
}

@Test func fuzzedRequestsNeverCrashTheRouter() throws {
    let f = try Fixture()
    var rng = SeededRandom(seed: 1234)
    let routes: [(String, String)] = [
        ("POST", "/api/rooms"), ("POST", "/api/rooms/accept"), ("POST", "/api/rooms/check?wait=5"),
        ("POST", "/api/user/purge"), ("DELETE", "/api/rooms"), ("GET", "/api/rooms?roomid=%zz&roomid"),
        ("GET", "/api/ice-servers"), ("PATCH", "/??=&&"),
    ]
    for i in 0..<6000 {
        let (method, target) = routes[i % routes.count]
        let body = mutate(bodySeeds[i % bodySeeds.count], i / routes.count, &rng)
        let host = String(decoding: mutate("[::1]:8080", i, &rng), as: UTF8.self)
        let request = HTTPRequest(method: method, target: target, headers: HTTPHeaders([("Host", host)]), body: body)
        let result = f.router.handle(request, clientAddress: "10.0.0.\(i % 7)", now: f.now)
        if case .respond(let response) = result {
            #expect((200..<600).contains(response.status))
        }
        if i % 500 == 0 { f.advance(seconds: 20) }
    }
    _ = f.router.pollCompletedLongPolls()
}

@Test func fuzzedTextsNeverCrashTheHub() throws {
    let f = try Fixture()
    let roomID = f.acceptedRoom()
    var rng = SeededRandom(seed: 5678)
    let seeds = [
        #"{"type":"join_room","roomId":"\#(roomID)"}"#, #"{"type":"leave_room"}"#, #"{"type":"ping"}"#,
        #"{"type":"webrtc_offer","sdp":"v=0"}"#, #"{"type":"ice_candidate","candidate":{"candidate":"c","sdpMLineIndex":0}}"#,
    ]
    for c in 0..<4 { _ = f.hub.connect(ConnectionID(UInt64(c))) }
    for i in 0..<8000 {
        let connection = ConnectionID(UInt64(i % 4))
        let bytes = i % 4 == 0 ? Array(seeds[i / 4 % seeds.count].utf8) : mutate(seeds[i % seeds.count], i, &rng)
        _ = f.hub.receive(connection, text: String(decoding: bytes, as: UTF8.self), now: f.now)
        if i % 997 == 0 {
            _ = f.hub.disconnect(connection)
            _ = f.hub.connect(connection)
        }
    }
    #expect(f.hub.connectionCount == 4)
}

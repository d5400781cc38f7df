import ChatClient
import HTTP1
import Testing

/// The client half of member-scoped TURN credentials.
@Suite struct MemberScopedICEServersTests {
    static let room = String(repeating: "0123456789ab", count: 4)

    @Test func theRequestNamesTheRoomAndDeviceOnlyWhenBothAreWellFormed() {
        #expect(RoomAPI.iceServersRequest(authority: "h:1").target == "/api/ice-servers")
        let scoped = RoomAPI.iceServersRequest(authority: "h:1", roomID: Self.room, deviceID: "dev-123456")
        #expect(scoped.method == "GET" && scoped.headers["Host"] == "h:1")
        #expect(scoped.target == "/api/ice-servers?roomid=\(Self.room)&deviceId=dev-123456")
        // Never smuggled into the target: an id of another shape is left out.
        for (room, device) in [(Self.room, "dev 123456&x=1"), ("not-a-room", "dev-123456"), (Self.room, nil), (nil, "dev-123456")] {
            #expect(RoomAPI.iceServersRequest(authority: "h", roomID: room, deviceID: device).target == "/api/ice-servers")
        }
    }

    @Test func theReasonForNoTURNTellsMembersOnlyAndRefusalApart() {
        let membersOnly = HTTPResponse(status: 200, body: Array(#"{"iceServers":[{"urls":["stun:h:3478"]}],"turnMembersOnly":true}"#.utf8))
        #expect(RoomAPI.isTURNMembersOnly(membersOnly))
        #expect(RoomAPI.noTURNReason(membersOnly) == .membersOnly)
        let refused = HTTPResponse(status: 403, body: Array(#"{"error":"not_a_member"}"#.utf8))
        #expect(!RoomAPI.isTURNMembersOnly(refused))
        #expect(RoomAPI.iceServers(refused).isEmpty)
        #expect(RoomAPI.noTURNReason(refused) == .roomGone)
        let plain = HTTPResponse(status: 200, body: Array(#"{"iceServers":[{"urls":["stun:h:3478"]}]}"#.utf8))
        #expect(!RoomAPI.isTURNMembersOnly(plain))
        #expect(RoomAPI.noTURNReason(plain) == .noneOffered)
        #expect(RoomAPI.noTURNReason(HTTPResponse(status: 404, body: Array("<html>".utf8))) == .noneOffered)
        #expect(RoomAPI.noTURNReason(nil) == .serverSilent)
    }
}

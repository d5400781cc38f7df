import HTTP1
import Signaling
import Wire

/// `GET /api/ice-servers[?roomid=R&deviceId=D]`: WireProtocol §1, plus an
/// extension that scopes TURN credentials to a room member.
extension RESTRouter {
    static let notAMember = RESTError(403, "not_a_member")

    /// Without parameters: credentials for anyone (WireProtocol §1), or none on a
    /// members-only server. With both: credentials for that member of that
    /// live room, else `403 not_a_member` (the same answer whether the room
    /// is unknown, expired or someone else's, so it reveals no room).
    func iceServerList(_ request: HTTPRequest, now: UnixTime) throws(RESTError) -> HTTPResponse {
        let grantee = try turnGrantee(request.query, now: now)
        return .json(200, iceServers.body(hostHeader: request.headers["Host"], grantee: grantee, now: now, random: &random))
    }

    func turnGrantee(_ query: [String: String], now: UnixTime) throws(RESTError) -> TURNGrantee {
        let present = { (name: String) in query[name].flatMap { $0.isEmpty ? nil : $0 } }
        switch (present("roomid"), present("deviceId")) {
        case (nil, nil):
            return iceServers.membersOnly ? .nobody : .anyone
        case (nil, _):
            throw RESTError(400, "missing_roomid")
        case (_, nil):
            throw RESTError(400, "missing_deviceId")
        case let (room?, device?):
            guard let roomID = RoomID(room), let deviceID = DeviceID(device),
                  let found = registry.room(id: roomID, now: now),
                  found.client1 == deviceID || found.client2 == deviceID || found.group?.member(device: deviceID) != nil
            else { throw RESTRouter.notAMember }
            return .member(roomID: roomID, deviceID: deviceID, roomExpiry: found.expiry)
        }
    }
}

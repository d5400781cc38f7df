import HTTP1
import Signaling
import Wire

/// The REST half of WireProtocol §1 as the client sees it: requests to build
/// and answers to interpret, for both `chatcli serve` and an unmodified
/// Inviso server (§2a). Pure functions, so every quirk is unit-tested.
public enum RoomAPI {
    public enum CreateOutcome: Equatable, Sendable {
        case created(expires: String?)
        /// The code is taken (409, or Inviso's `500 create_failed`): pick another.
        case codeInUse
        case failed(ClientError)
    }

    public enum AcceptOutcome: Equatable, Sendable {
        case accepted(roomID: String)
        case failed(ClientError)
    }

    public enum CheckOutcome: Equatable, Sendable {
        case pending
        case accepted(roomID: String)
        case failed(ClientError)
    }

    /// `groupMax`: a group room of at most that many members (WireProtocol §2b).
    public static func createRequest(code: String, deviceID: String, expiresIn: Int, authority: String,
                                     groupMax: Int? = nil) -> HTTPRequest {
        var fields: [(String, JSON)] = [("joinid", .string(code)), ("expiresInSeconds", JSON(expiresIn)), ("client1", .string(deviceID))]
        if let groupMax { fields += [("group", .bool(true)), ("max", JSON(groupMax))] }
        return post("/api/rooms", .object(fields), authority)
    }

    /// A group room's seat, from a `create` or `accept` answer that has one
    /// (`"group":true,"max":N,"memberId":M`); nil for a two-member room.
    public static func groupSeat(_ r: HTTPResponse) -> GroupSeat? {
        guard r.status == 200 || r.status == 201, let body = body(r), body["group"]?.boolValue == true,
              let member = body["memberId"]?.stringValue.flatMap(MemberID.init),
              let max = body["max"]?.intValue, GroupSize.range.contains(max)
        else { return nil }
        return GroupSeat(memberID: member, max: max)
    }

    public static func acceptRequest(code: String, deviceID: String, authority: String) -> HTTPRequest {
        post("/api/rooms/accept", ["joinid": .string(code), "client2": .string(deviceID)], authority)
    }

    public static func checkRequest(code: String, deviceID: String, wait: Int?, authority: String) -> HTTPRequest {
        let target = wait.map { "/api/rooms/check?wait=\($0)" } ?? "/api/rooms/check"
        return post(target, ["joinid": .string(code), "client1": .string(deviceID)], authority)
    }

    /// With a room and device id (as `chatcli serve` issues them), asks for
    /// TURN credentials scoped to that member; servers that do not know the
    /// parameters ignore them. Ids of another shape are not sent.
    public static func iceServersRequest(authority: String, roomID: String? = nil, deviceID: String? = nil) -> HTTPRequest {
        var headers = HTTPHeaders()
        headers.add("Host", authority)
        var target = "/api/ice-servers"
        if let room = roomID.flatMap(RoomID.init), let device = deviceID.flatMap(DeviceID.init) {
            target += "?roomid=\(room.rawValue)&deviceId=\(device.rawValue)"
        }
        return HTTPRequest(method: "GET", target: target, headers: headers)
    }

    public static func purgeRequest(deviceIDs: [String], authority: String) -> HTTPRequest {
        post("/api/user/purge", ["deviceIds": .array(deviceIDs.map { .string($0) })], authority)
    }

    public static func interpretCreate(_ r: HTTPResponse) -> CreateOutcome {
        switch r.status {
        case 200, 201: return .created(expires: body(r)?["exp"]?.stringValue)
        case 409: return .codeInUse
        case 500 where errorCode(r) == "create_failed": return .codeInUse
        default: return .failed(serverError(r, action: "create a room"))
        }
    }

    /// The room's expiry from an accept answer, when the server sends it
    /// (`chatcli serve` does; Inviso does not).
    public static func acceptExpiry(_ r: HTTPResponse) -> String? {
        r.status == 200 ? body(r)?["exp"]?.stringValue : nil
    }

    public static func interpretAccept(_ r: HTTPResponse) -> AcceptOutcome {
        switch r.status {
        case 200:
            guard let id = body(r)?["roomid"]?.stringValue, !id.isEmpty else {
                return .failed(.protocolViolation("the server accepted the code but sent no room id"))
            }
            return .accepted(roomID: id)
        case 404: return .failed(.codeNotFound)
        case 409 where errorCode(r) == "room_full": return .failed(.roomFull)
        case 409: return .failed(.codeAlreadyUsed)
        case 429: return .failed(.rateLimited(retryAfter: r.headers["Retry-After"].flatMap { Int($0) }))
        default: return .failed(serverError(r, action: "accept the code"))
        }
    }

    public static func interpretCheck(_ r: HTTPResponse) -> CheckOutcome {
        switch r.status {
        case 204: return .pending
        case 200:
            guard let id = body(r)?["roomid"]?.stringValue, !id.isEmpty else { return .pending }
            return .accepted(roomID: id)
        case 404: return .failed(.codeExpired)
        default: return .failed(serverError(r, action: "check the room"))
        }
    }

    /// The URLs of a `GET /api/ice-servers` answer.
    public static func iceServerURLs(_ r: HTTPResponse) -> [String] {
        iceServers(r).flatMap(\.urls)
    }

    /// The entries of a `GET /api/ice-servers` answer (`urls` as an array or
    /// a single string, as WebRTC allows; TURN entries with `username` and
    /// `credential`); empty for anything else, such as Inviso's 404.
    public static func iceServers(_ r: HTTPResponse) -> [ICEServerEntry] {
        guard r.status == 200, let list = body(r)?["iceServers"]?.arrayValue else { return [] }
        return list.map { entry in
            let urls = entry["urls"]?.stringValue.map { [$0] } ?? entry["urls"]?.arrayValue?.compactMap(\.stringValue) ?? []
            return ICEServerEntry(urls: urls, username: entry["username"]?.stringValue, credential: entry["credential"]?.stringValue)
        }
    }

    /// Why an `/api/ice-servers` answer carries no TURN entry, as the end of
    /// a sentence: a members-only server, a refusal (`403 not_a_member`: the
    /// room is gone), or simply none offered.
    public static func noTURNReason(_ r: HTTPResponse?) -> NoTURN {
        guard let r else { return .serverSilent }
        if r.status == 403 && errorCode(r) == "not_a_member" { return .roomGone }
        if isTURNMembersOnly(r) { return .membersOnly }
        return .noneOffered
    }

    /// Whether the server withheld TURN because the request named no room
    /// (`"turnMembersOnly":true`, an extension of `chatcli serve`).
    public static func isTURNMembersOnly(_ r: HTTPResponse) -> Bool {
        r.status == 200 && body(r)?["turnMembersOnly"] == .bool(true)
    }

    /// Whether a failed call is worth retrying with backoff (Inviso answers
    /// 5xx "database is locked" under concurrency without changing anything).
    public static func isTransient(_ r: HTTPResponse) -> Bool {
        r.status >= 500 && r.status != 501
    }

    static func body(_ r: HTTPResponse) -> JSON? {
        guard let json = try? JSON.parse(r.body), json.isObject else { return nil }
        return json
    }

    static func errorCode(_ r: HTTPResponse) -> String? { body(r)?["error"]?.stringValue }

    static func serverError(_ r: HTTPResponse, action: String) -> ClientError {
        .server(status: r.status, code: errorCode(r), action: action)
    }

    private static func post(_ target: String, _ body: JSON, _ authority: String) -> HTTPRequest {
        var headers = HTTPHeaders()
        headers.add("Host", authority)
        headers.add("Content-Type", "application/json")
        return HTTPRequest(method: "POST", target: target, headers: headers, body: body.serializedBytes)
    }
}

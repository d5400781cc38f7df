import HTTP1
import Signaling
import Wire

/// The room routes. Each parses its body into typed values first (see
/// `RESTFields` for the precedence of error codes), then asks the registry.
extension RESTRouter {
    /// `POST /api/rooms {joinid, expiresInSeconds, client1[, group, max]}`.
    func create(_ request: HTTPRequest, now: UnixTime) throws(RESTError) -> HTTPResponse {
        let body = try RESTFields.object(request.body)
        try RESTFields.requirePresent(body, "joinid", "client1", "expiresInSeconds")
        let code = try RESTFields.joinCode(body)
        let seconds = try RESTFields.expiresInSeconds(body)
        let client1 = try RESTFields.deviceID(body, "client1")
        let groupMax = try RESTFields.groupMax(body)
        let outcome = try store { () throws(RoomStoreError) in
            try registry.create(joinCode: code, client1: client1, expiresInSeconds: seconds, groupMax: groupMax, now: now)
        }
        switch outcome {
        case .created(let expiry):
            let fields: [(String, JSON)] = [("ok", true), ("exp", .string(expiry.iso8601))]
            return .json(201, .object(fields + groupFields(code, client1, now)))
        case .joinCodeInUse: throw RESTError(409, "joinid_in_use")
        case .codeSpaceFull: throw RESTRouter.codeSpaceFull
        }
    }

    /// `POST /api/rooms/accept {joinid, client2}`. A rate-limited address gets
    /// 429 before its body is even read, so no answer depends on the code.
    func accept(_ request: HTTPRequest, address: String, now: UnixTime) throws(RESTError) -> HTTPResponse {
        if let wait = registry.acceptRetryAfter(address: address, now: now) { throw RESTRouter.rateLimited(wait) }
        let body = try RESTFields.object(request.body)
        try RESTFields.requirePresent(body, "joinid", "client2")
        let code = try RESTFields.joinCode(body)
        let client2 = try RESTFields.deviceID(body, "client2")
        let outcome = try store { () throws(RoomStoreError) in
            try registry.accept(joinCode: code, client2: client2, address: address, now: now)
        }
        switch outcome {
        case .accepted(let id):
            // With the room's expiry, an extension (Inviso sends the roomid alone) so a joiner knows it too.
            var fields: [(String, JSON)] = [("roomid", .string(id.rawValue))]
            if let room = registry.room(id: id, now: now) { fields.append(("exp", .string(room.expiry.iso8601))) }
            return .json(200, .object(fields + groupFields(code, client2, now)))
        case .notFound: throw RESTError.notFoundOrExpired
        case .alreadyAccepted: throw RESTError(409, "already_accepted")
        case .roomFull: throw RESTError(409, "room_full")
        case .rateLimited(let wait): throw RESTRouter.rateLimited(wait)
        }
    }

    /// Too many live rooms: creating waits until some expire (WireProtocol §1).
    static let codeSpaceFull = RESTError(503, "code_space_full", headers: HTTPHeaders([("Retry-After", "60")]))

    static func rateLimited(_ seconds: Int64) -> RESTError {
        RESTError(429, "rate_limited", headers: HTTPHeaders([("Retry-After", String(max(1, seconds)))]))
    }

    /// `POST /api/rooms/check[?wait=S] {joinid, client1}`.
    func check(_ request: HTTPRequest, now: UnixTime) throws(RESTError) -> RouteResult {
        let body = try RESTFields.object(request.body)
        try RESTFields.requirePresent(body, "joinid", "client1")
        let code = try RESTFields.joinCode(body)
        let client1 = try RESTFields.deviceID(body, "client1")
        let wait = RESTRouter.waitSeconds(request)
        let outcome = registry.check(joinCode: code, client1: client1, now: now, wait: wait != nil)
        if case .waiting(let token) = outcome, let wait {
            return .longPoll(token, deadline: now.adding(seconds: wait))
        }
        return .respond(RESTRouter.checkResponse(outcome))
    }

    /// `GET /api/rooms?roomid=R`. A group room shows its size, not its
    /// members' device ids: those are what a member takes its seat with.
    func lookup(_ request: HTTPRequest, now: UnixTime) throws(RESTError) -> HTTPResponse {
        let query = request.query["roomid"]
        let id = try RESTFields.roomID(query.map(JSON.string))
        guard let room = registry.room(id: id, now: now) else { throw RESTError.notFound }
        if let group = room.group {
            return .json(200, ["roomid": .string(id.rawValue), "group": true, "max": JSON(group.max), "members": JSON(group.members.count)])
        }
        return .json(
            200,
            [
                "roomid": .string(id.rawValue), "client1": .string(room.client1.rawValue),
                "client2": room.client2.map { .string($0.rawValue) } ?? .null,
            ])
    }

    /// `DELETE /api/rooms {roomid}`.
    func delete(_ request: HTTPRequest, now: UnixTime) throws(RESTError) -> HTTPResponse {
        let body = try RESTFields.object(request.body)
        let id = try RESTFields.roomID(body["roomid"])
        let deleted = try store { () throws(RoomStoreError) in try registry.delete(id: id, now: now) }
        guard deleted else { throw RESTError.notFound }
        return .json(200, ["ok": true])
    }

    /// `POST /api/user/purge {deviceIds:[…]}`.
    func purge(_ request: HTTPRequest, now: UnixTime) throws(RESTError) -> HTTPResponse {
        let body = try RESTFields.object(request.body)
        let ids = try RESTFields.deviceIDs(body)
        let result = try store { () throws(RoomStoreError) in try registry.purge(deviceIDs: ids, now: now) }
        return .json(
            200,
            [
                "success": true, "deviceIdCount": JSON(ids.count),
                "roomsDeleted": JSON(result.roomsDeleted), "pendingsDeleted": JSON(result.pendingsDeleted),
            ])
    }

    /// `"group":true,"max":N,"memberId":M` when `device` is a member of the
    /// group room under `code`; nothing for a two-member room.
    func groupFields(_ code: JoinCode, _ device: DeviceID, _ now: UnixTime) -> [(String, JSON)] {
        guard let (group, member) = registry.member(device: device, joinCode: code, now: now) else { return [] }
        return [("group", true), ("max", JSON(group.max)), ("memberId", .string(member.memberID.rawValue))]
    }

    /// Runs a registry call, turning a store failure into `500 internal_error`.
    private func store<T>(_ body: () throws(RoomStoreError) -> T) throws(RESTError) -> T {
        do { return try body() } catch { throw RESTError.internalError }
    }
}

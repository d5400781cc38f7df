import HTTP1
import Redis
import Signaling
import Wire

/// The room routes over Redis: the same parsing and error precedence as
/// ``RESTRouter`` (see `RESTFields`), then one script each.
extension ClusterRouter {
    func ping(_ token: LongPollToken) {
        link.commands.send(["PING"]) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success:
                // The body stays WireProtocol's; the header tells operators (and
                // tests) how many long polls this instance holds.
                self.finishHealth(token, HTTPResponse.json(200, ["ok": true]).with("X-Long-Polls", String(self.parkedCount)))
            case .failure: self.finishHealth(token, .json(503, ["ok": false, "error": "redis_unavailable"]).with("Retry-After", "1"))
            }
        }
    }

    func create(_ request: HTTPRequest, _ token: LongPollToken, _ now: UnixTime) {
        let code: JoinCode, seconds: Int64, client1: DeviceID, groupMax: Int?
        do throws(RESTError) {
            let body = try RESTFields.object(request.body)
            try RESTFields.requirePresent(body, "joinid", "client1", "expiresInSeconds")
            code = try RESTFields.joinCode(body)
            seconds = try RESTFields.expiresInSeconds(body)
            client1 = try RESTFields.deviceID(body, "client1")
            groupMax = try RESTFields.groupMax(body)
        } catch {
            return finishError(token, error)
        }
        let expiry = now.adding(seconds: seconds)
        var arguments = [code.rawValue, client1.rawValue, String(expiry.milliseconds), String(maxRooms)]
        if let groupMax { arguments += [String(groupMax), MemberID.random(using: &random).rawValue] }
        run(ClusterScripts.create, token, now, arguments) { reply in
            if reply.integer == -1 { return RESTRouter.codeSpaceFull.response }
            // A group room answers {exp, memberId, max}.
            let parts = reply.elements ?? []
            guard let exp = parts.first?.integer ?? reply.integer, exp > 0 else { return RESTError(409, "joinid_in_use").response }
            var fields: [(String, JSON)] = [("ok", true), ("exp", .string(UnixTime(milliseconds: exp).iso8601))]
            if parts.count == 3, let member = parts[1].string, let max = parts[2].integer {
                fields += [("group", true), ("max", JSON(Int(max))), ("memberId", .string(member))]
            }
            return .json(201, .object(fields))
        }
    }

    /// A rate-limited address gets 429 whatever its body says, so the
    /// limit is asked first when the body is bad.
    func accept(_ request: HTTPRequest, _ address: String, _ token: LongPollToken, _ now: UnixTime) {
        let window = String(windowMilliseconds)
        let code: JoinCode, client2: DeviceID
        do {
            let body = try RESTFields.object(request.body)
            try RESTFields.requirePresent(body, "joinid", "client2")
            code = try RESTFields.joinCode(body)
            client2 = try RESTFields.deviceID(body, "client2")
        } catch {
            run(ClusterScripts.limited, token, now, [address, String(limit), window]) { reply in
                let wait = reply.integer ?? 0
                return wait > 0 ? RESTRouter.rateLimited(Self.seconds(wait)).response : error.response
            }
            return
        }
        tryAccept(code, client2, address, token, now)
    }

    private func tryAccept(_ code: JoinCode, _ client2: DeviceID, _ address: String, _ token: LongPollToken, _ now: UnixTime) {
        let roomID = RoomID.random(using: &self.random)
        let memberID = MemberID.random(using: &self.random)
        let arguments = [code.rawValue, client2.rawValue, address, String(limit), String(windowMilliseconds), roomID.rawValue, memberID.rawValue]
        run(ClusterScripts.accept, token, now, arguments) { [weak self] reply in
            let parts = reply.elements ?? []
            switch parts.first?.string {
            case "ok":
                // A retry by the client that accepted gets the roomid it got first.
                guard parts.count > 1, let id = parts[1].string else { return RESTError.internalError.response }
                // The room's expiry (an extension: Inviso sends the roomid alone).
                guard parts.count > 2, let ms = parts[2].string.flatMap({ Int64($0) }) ?? parts[2].integer else {
                    return .json(200, ["roomid": .string(id)])
                }
                var fields: [(String, JSON)] = [("roomid", .string(id)), ("exp", .string(UnixTime(milliseconds: ms).iso8601))]
                // A group room adds its size and the member's id.
                if parts.count == 5, let max = parts[3].string.flatMap({ Int($0) }), let member = parts[4].string {
                    fields += [("group", true), ("max", JSON(max)), ("memberId", .string(member))]
                }
                return .json(200, .object(fields))
            case "limited": return RESTRouter.rateLimited(Self.seconds(parts.count > 1 ? parts[1].integer ?? 1000 : 1000)).response
            case "notfound": return RESTError.notFoundOrExpired.response
            case "taken": return RESTError(409, "already_accepted").response
            case "full": return RESTError(409, "room_full").response
            case "collision":
                // 2^-192: practically never, but never answered wrong.
                self?.tryAccept(code, client2, address, token, now)
                return nil
            default: return RESTError.internalError.response
            }
        }
    }

    func check(_ request: HTTPRequest, wait: Bool, _ token: LongPollToken, _ now: UnixTime) {
        do {
            let body = try RESTFields.object(request.body)
            try RESTFields.requirePresent(body, "joinid", "client1")
            runCheck(try RESTFields.joinCode(body), try RESTFields.deviceID(body, "client1"), wait: wait, token, now)
        } catch {
            finishError(token, error)
        }
    }

    /// Asks Redis; a pending room with `wait` parks the poll until a
    /// wake-up for its code (or its deadline).
    func runCheck(_ code: JoinCode, _ client1: DeviceID, wait: Bool, _ token: LongPollToken, _ now: UnixTime) {
        run(ClusterScripts.check, token, now, [code.rawValue, client1.rawValue]) { [weak self] reply in
            let parts = reply.elements ?? []
            switch parts.first?.string {
            case "accepted":
                guard parts.count > 1, let id = parts[1].string else { return RESTError.internalError.response }
                return .json(200, ["roomid": .string(id)])
            case "pending":
                guard wait, let self else { return .noContent }
                self.park(token, code, client1, now)
                return nil
            default:
                return RESTError.notFoundOrExpired.response
            }
        }
    }

    func lookup(_ request: HTTPRequest, _ token: LongPollToken, _ now: UnixTime) {
        let id: RoomID
        do {
            id = try RESTFields.roomID(request.query["roomid"].map(JSON.string))
        } catch {
            return finishError(token, error)
        }
        run(ClusterScripts.lookup, token, now, [id.rawValue]) { reply in
            guard let fields = reply.elements, fields.count >= 3, let client1 = fields[0].string else {
                return RESTError.notFound.response
            }
            if fields.count >= 5, let max = fields[3].string.flatMap({ Int($0) }), let count = fields[4].string.flatMap({ Int($0) }) {
                return .json(200, ["roomid": .string(id.rawValue), "group": true, "max": JSON(max), "members": JSON(count)])
            }
            return .json(200, ["roomid": .string(id.rawValue), "client1": .string(client1), "client2": fields[1].string.map(JSON.string) ?? .null])
        }
    }

    func delete(_ request: HTTPRequest, _ token: LongPollToken, _ now: UnixTime) {
        let id: RoomID
        do {
            id = try RESTFields.roomID(try RESTFields.object(request.body)["roomid"])
        } catch {
            return finishError(token, error)
        }
        run(ClusterScripts.delete, token, now, [id.rawValue]) { reply in
            reply.integer == 1 ? .json(200, ["ok": true]) : RESTError.notFound.response
        }
    }

    func purge(_ request: HTTPRequest, _ token: LongPollToken, _ now: UnixTime) {
        let ids: [DeviceID]
        do {
            ids = try RESTFields.deviceIDs(try RESTFields.object(request.body))
        } catch {
            return finishError(token, error)
        }
        run(ClusterScripts.purge, token, now, ids.map(\.rawValue)) { reply in
            let counts = (reply.elements ?? []).compactMap(\.integer)
            guard counts.count == 2 else { return RESTError.internalError.response }
            return .json(200, [
                "success": true, "deviceIdCount": JSON(ids.count),
                "roomsDeleted": JSON(Int(counts[0])), "pendingsDeleted": JSON(Int(counts[1])),
            ])
        }
    }

    /// `GET /api/ice-servers?roomid=R&deviceId=D`: TURN credentials for a
    /// member of a live room (the same 403 for every kind of miss).
    func iceServers(_ request: HTTPRequest, _ token: LongPollToken, _ now: UnixTime) {
        guard let room = request.query["roomid"].flatMap({ RoomID($0) }), let device = request.query["deviceId"].flatMap({ DeviceID($0) }) else {
            return finishError(token, RESTRouter.notAMember)
        }
        let host = request.headers["Host"]
        run(ClusterScripts.lookup, token, now, [room.rawValue, device.rawValue]) { [weak self] reply in
            guard let self, let fields = reply.elements, fields.count >= 3,
                  fields[0].string == device.rawValue || fields[1].string == device.rawValue || (fields.count >= 6 && fields[5].integer == 1),
                  let expiry = fields[2].string.flatMap(Int64.init) else {
                return RESTRouter.notAMember.response
            }
            let grantee = TURNGrantee.member(roomID: room, deviceID: device, roomExpiry: UnixTime(milliseconds: expiry))
            return .json(200, self.rest.iceServers.body(hostHeader: host, grantee: grantee, now: now, random: &self.random))
        }
    }

    static func seconds(_ milliseconds: Int64) -> Int64 { max(1, (milliseconds + 999) / 1000) }
}

import Wire

/// A message the signaling server sends to a client over the WebSocket.
///
/// Decoding is lenient so a client works with both `chatcli serve` and an
/// Inviso server (WireProtocol §2a): unknown fields are ignored, `peer_left` and
/// `peer_disconnected` may lack `roomId`, `room_full` may carry an `error`, and
/// error texts may be free text. Encoding uses exactly the field names of §2.
public enum ServerMessage: Equatable, Sendable {
    case connected(clientId: String)
    case roomJoined(roomId: String, userCount: Int, isInitiator: Bool, ready: Bool)
    case roomReady(roomId: String, userCount: Int, isInitiator: Bool)
    case roomFull
    case leftRoom(roomId: String?)
    case peerLeft(roomId: String?)
    case peerDisconnected(roomId: String?)
    case pong
    case error(SignalingErrorCode)
    /// A message from the other member: its type, the sender's `clientId`,
    /// the room, and every other field the sender put in it.
    case relayed(type: String, from: String?, roomId: String?, payload: [(String, JSON)])
    /// `room_joined` in a group room (it carries `"group":true`; §2b).
    case groupJoined(GroupJoined)
    /// Another member took its seat in the group room; `isInitiator`: the
    /// receiver makes the offer to it.
    case memberJoined(roomId: String, memberId: MemberID, isInitiator: Bool, userCount: Int)
    /// A member's seat emptied; the room goes on for the others.
    case memberLeft(roomId: String, memberId: MemberID, reason: MemberLeaving, userCount: Int)

    public init?(json: JSON) {
        guard json.isObject, let type = json["type"]?.stringValue else { return nil }
        switch type {
        case MessageType.connected:
            guard let id = json["clientId"]?.stringValue else { return nil }
            self = .connected(clientId: id)
        case MessageType.roomJoined where json["group"]?.boolValue == true:
            guard let joined = GroupJoined(json: json) else { return nil }
            self = .groupJoined(joined)
        case MessageType.roomJoined:
            guard let roomId = json["roomId"]?.stringValue else { return nil }
            let count = json["userCount"]?.intValue ?? 1
            self = .roomJoined(
                roomId: roomId, userCount: count,
                isInitiator: json["isInitiator"]?.boolValue ?? false,
                ready: json["ready"]?.boolValue ?? (count >= 2))
        case MessageType.roomReady:
            guard let roomId = json["roomId"]?.stringValue else { return nil }
            self = .roomReady(
                roomId: roomId, userCount: json["userCount"]?.intValue ?? 2,
                isInitiator: json["isInitiator"]?.boolValue ?? false)
        case MessageType.roomFull:
            self = .roomFull
        case MessageType.leftRoom:
            self = .leftRoom(roomId: json["roomId"]?.stringValue)
        case MessageType.peerLeft:
            self = .peerLeft(roomId: json["roomId"]?.stringValue)
        case MessageType.peerDisconnected:
            self = .peerDisconnected(roomId: json["roomId"]?.stringValue)
        case MessageType.pong:
            self = .pong
        case MessageType.memberJoined:
            guard let roomId = json["roomId"]?.stringValue, let id = json["memberId"]?.stringValue.flatMap(MemberID.init) else { return nil }
            self = .memberJoined(
                roomId: roomId, memberId: id, isInitiator: json["isInitiator"]?.boolValue ?? false,
                userCount: json["userCount"]?.intValue ?? 2)
        case MessageType.memberLeft:
            guard let roomId = json["roomId"]?.stringValue, let id = json["memberId"]?.stringValue.flatMap(MemberID.init) else { return nil }
            // An unknown reason is a departure all the same.
            let reason = json["reason"]?.stringValue.flatMap(MemberLeaving.init(rawValue:)) ?? .left
            self = .memberLeft(roomId: roomId, memberId: id, reason: reason, userCount: json["userCount"]?.intValue ?? 1)
        case MessageType.error:
            // Ours: `error` holds the code. Inviso: `error` or `message` holds text.
            let text = json["error"]?.stringValue ?? json["message"]?.stringValue ?? ""
            self = .error(SignalingErrorCode(rawValue: text))
        default:
            guard MessageType.isRelayed(type), case .object(let members) = json else { return nil }
            self = .relayed(
                type: type, from: json["from"]?.stringValue, roomId: json["roomId"]?.stringValue,
                payload: members.filter { !ServerMessage.relayEnvelopeKeys.contains($0.0) })
        }
    }

    private static let relayEnvelopeKeys: Set<String> = ["type", "from", "roomId"]

    public var json: JSON {
        switch self {
        case .connected(let id):
            return ["type": .string(MessageType.connected), "clientId": .string(id)]
        case .roomJoined(let roomId, let count, let initiator, let ready):
            return [
                "type": .string(MessageType.roomJoined), "roomId": .string(roomId),
                "userCount": JSON(count), "isInitiator": .bool(initiator), "ready": .bool(ready),
            ]
        case .roomReady(let roomId, let count, let initiator):
            return [
                "type": .string(MessageType.roomReady), "roomId": .string(roomId),
                "userCount": JSON(count), "isInitiator": .bool(initiator),
            ]
        case .roomFull:
            return ["type": .string(MessageType.roomFull)]
        case .leftRoom(let roomId):
            return ["type": .string(MessageType.leftRoom), "roomId": roomId.map(JSON.string) ?? .null]
        case .peerLeft(let roomId):
            return ["type": .string(MessageType.peerLeft), "roomId": roomId.map(JSON.string) ?? .null]
        case .peerDisconnected(let roomId):
            return ["type": .string(MessageType.peerDisconnected), "roomId": roomId.map(JSON.string) ?? .null]
        case .pong:
            return ["type": .string(MessageType.pong)]
        case .error(let code):
            return ["type": .string(MessageType.error), "error": .string(code.rawValue)]
        case .groupJoined(let joined):
            return joined.json
        case .memberJoined(let roomId, let id, let initiator, let count):
            return [
                "type": .string(MessageType.memberJoined), "roomId": .string(roomId), "memberId": .string(id.rawValue),
                "isInitiator": .bool(initiator), "userCount": JSON(count),
            ]
        case .memberLeft(let roomId, let id, let reason, let count):
            return [
                "type": .string(MessageType.memberLeft), "roomId": .string(roomId), "memberId": .string(id.rawValue),
                "reason": .string(reason.rawValue), "userCount": JSON(count),
            ]
        case .relayed(let type, let from, let roomId, let payload):
            var members: [(String, JSON)] = [("type", .string(type))]
            members += payload.filter { !ServerMessage.relayEnvelopeKeys.contains($0.0) }
            if let from { members.append(("from", .string(from))) }
            if let roomId { members.append(("roomId", .string(roomId))) }
            return .object(members)
        }
    }

    public static func == (a: ServerMessage, b: ServerMessage) -> Bool { a.json == b.json }
}

import Wire

/// A message a client sends to the signaling server over the WebSocket.
///
/// The `Signaling` module holds what client and server share about the
/// signaling WebSocket (WireProtocol §2): `ClientMessage`, `ServerMessage`,
/// the ICE candidate payload, the error codes, and the ids parsed at the
/// edge (`JoinCode`, `RoomID`, `DeviceID`). It does no I/O.
///
/// Relayed messages keep every field the sender put in them (except `type`,
/// and `from`/`roomId`, which the server sets), so peers can extend them.
public enum ClientMessage: Equatable, Sendable {
    case joinRoom(roomId: String)
    /// `join_room` with the `deviceId` the member was admitted with: how a
    /// member takes (or takes back) its seat in a group room (§2b).
    case joinGroup(roomId: String, deviceId: DeviceID)
    case leaveRoom
    case ping
    /// `webrtc_offer`, `webrtc_answer`, `ice_candidate`, `key_exchange` or `chat_*`;
    /// `payload` is the object's other members.
    case relay(type: String, payload: [(String, JSON)])

    /// Why a text frame does not decode; the server answers with this code.
    public static func decode(_ json: JSON) -> Result<ClientMessage, SignalingErrorCode> {
        guard case .object(let members) = json else { return .failure(.invalidJSON) }
        guard let type = json["type"]?.stringValue else { return .failure(.unknownType) }
        switch type {
        case MessageType.joinRoom:
            guard let roomId = json["roomId"]?.stringValue else { return .failure(.invalidMessage) }
            switch json["deviceId"] {
            case .none, .some(.null):
                return .success(.joinRoom(roomId: roomId))
            case .some(let value):
                guard let device = value.stringValue.flatMap(DeviceID.init) else { return .failure(.invalidMessage) }
                return .success(.joinGroup(roomId: roomId, deviceId: device))
            }
        case MessageType.leaveRoom:
            return .success(.leaveRoom)
        case MessageType.ping:
            return .success(.ping)
        default:
            guard MessageType.isRelayed(type) else { return .failure(.unknownType) }
            return .success(.relay(type: type, payload: members.filter { $0.0 != "type" }))
        }
    }

    /// Decodes a text frame: JSON parsing errors become `invalidJSON`.
    public static func decode(text: String) -> Result<ClientMessage, SignalingErrorCode> {
        guard let json = try? JSON.parse(text) else { return .failure(.invalidJSON) }
        return decode(json)
    }

    /// Lenient decoding: unknown fields are ignored; nil for an unknown type.
    public init?(json: JSON) {
        guard case .success(let message) = ClientMessage.decode(json) else { return nil }
        self = message
    }

    public var json: JSON {
        switch self {
        case .joinRoom(let roomId):
            return ["type": .string(MessageType.joinRoom), "roomId": .string(roomId)]
        case .joinGroup(let roomId, let device):
            return ["type": .string(MessageType.joinRoom), "roomId": .string(roomId), "deviceId": .string(device.rawValue)]
        case .leaveRoom:
            return ["type": .string(MessageType.leaveRoom)]
        case .ping:
            return ["type": .string(MessageType.ping)]
        case .relay(let type, let payload):
            return .object([("type", .string(type))] + payload.filter { $0.0 != "type" })
        }
    }

    /// The member a relay in a group room is addressed to (its `to`), if any.
    public var to: String? {
        guard case .relay(_, let payload) = self else { return nil }
        return payload.last(where: { $0.0 == "to" })?.1.stringValue
    }

    public static func == (a: ClientMessage, b: ClientMessage) -> Bool { a.json == b.json }
}

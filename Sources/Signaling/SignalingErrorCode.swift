/// The `error` field of `{"type":"error","error":…}`.
///
/// Our server sends the codes below; an Inviso server sends free text
/// ("Invalid JSON format", …), which decodes to a code with that raw value,
/// so a client compares against the known codes and shows anything else as is.
public struct SignalingErrorCode: RawRepresentable, Hashable, Sendable, Error {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `join_room` for a room that is not accepted, expired or unknown.
    public static let roomNotFound = SignalingErrorCode(rawValue: "room_not_found")
    /// A relay from a connection that is in no room.
    public static let notInRoom = SignalingErrorCode(rawValue: "not_in_room")
    /// A relay while alone in the room.
    public static let noPeer = SignalingErrorCode(rawValue: "no_peer")
    /// The text frame is not JSON, or not a JSON object.
    public static let invalidJSON = SignalingErrorCode(rawValue: "invalid_json")
    /// The object has no string `type`, or a type this server does not know.
    public static let unknownType = SignalingErrorCode(rawValue: "unknown_type")
    /// A known type with a missing or malformed required field.
    public static let invalidMessage = SignalingErrorCode(rawValue: "invalid_message")
    /// A text frame over 64 KiB.
    public static let messageTooLarge = SignalingErrorCode(rawValue: "message_too_large")
    /// `join_room` of a group room without the `deviceId` of a member the
    /// server admitted (through `create` or `accept`).
    public static let notAMember = SignalingErrorCode(rawValue: "not_a_member")
    /// A relay in a group room without a `to` member id.
    public static let missingTo = SignalingErrorCode(rawValue: "missing_to")
    /// A relay whose `to` is not another member of the sender's group room.
    public static let unknownMember = SignalingErrorCode(rawValue: "unknown_member")
}

/// The `type` strings of the WebSocket protocol (WireProtocol §2).
public enum MessageType {
    public static let joinRoom = "join_room"
    public static let leaveRoom = "leave_room"
    public static let ping = "ping"
    public static let pong = "pong"
    public static let connected = "connected"
    public static let roomJoined = "room_joined"
    public static let roomReady = "room_ready"
    public static let roomFull = "room_full"
    public static let leftRoom = "left_room"
    public static let peerLeft = "peer_left"
    public static let peerDisconnected = "peer_disconnected"
    public static let error = "error"
    public static let memberJoined = "member_joined"
    public static let memberLeft = "member_left"
    public static let webrtcOffer = "webrtc_offer"
    public static let webrtcAnswer = "webrtc_answer"
    public static let iceCandidate = "ice_candidate"
    public static let keyExchange = "key_exchange"

    /// Whether the server relays this type to the other member unchanged.
    public static func isRelayed(_ type: String) -> Bool {
        switch type {
        case webrtcOffer, webrtcAnswer, iceCandidate, keyExchange: return true
        default: return type.utf8.count > 5 && type.hasPrefix("chat_")
        }
    }
}

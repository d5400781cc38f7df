import Wire

/// A member of a group room as the others see it: 16 lowercase hex
/// characters the server draws when the member is admitted (WireProtocol §2b).
///
/// Deliberately not the member's device id: the device id is what a member
/// presents to take its seat (`join_room`), so the server never shows it to
/// the other members.
public struct MemberID: Hashable, Sendable, Comparable {
    public static let byteCount = 8
    public let rawValue: String

    public init?(_ string: String) {
        guard Hex.isLowercase(string, byteCount: MemberID.byteCount) else { return nil }
        rawValue = string
    }

    /// A fresh id; `using` must be a CSPRNG outside tests.
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> MemberID {
        MemberID(unchecked: Hex.encodeRandom(byteCount: byteCount, using: &generator))
    }

    private init(unchecked: String) { rawValue = unchecked }

    public static func < (a: MemberID, b: MemberID) -> Bool { a.rawValue < b.rawValue }
}

/// The members a group room allows: 3…8, 8 unless the creator asks for fewer.
public enum GroupSize {
    public static let range = 3...8
    public static let defaultMax = 8
}

/// One entry of `room_joined.members`: a member already seated, and whether
/// the newcomer makes the offer to it (the member admitted earlier offers).
public struct GroupPeer: Equatable, Sendable {
    public var memberId: MemberID
    public var isInitiator: Bool

    public init(memberId: MemberID, isInitiator: Bool) {
        self.memberId = memberId
        self.isInitiator = isInitiator
    }

    var json: JSON { ["memberId": .string(memberId.rawValue), "isInitiator": .bool(isInitiator)] }

    init?(json: JSON) {
        guard let id = json["memberId"]?.stringValue.flatMap(MemberID.init) else { return nil }
        self.init(memberId: id, isInitiator: json["isInitiator"]?.boolValue ?? false)
    }
}

/// `room_joined` in a group room: the seat taken and who is already there.
public struct GroupJoined: Equatable, Sendable {
    public var roomId: String
    public var memberId: MemberID
    public var max: Int
    /// The other members seated now, in the order they were admitted.
    public var members: [GroupPeer]

    public init(roomId: String, memberId: MemberID, max: Int, members: [GroupPeer]) {
        self.roomId = roomId
        self.memberId = memberId
        self.max = max
        self.members = members
    }

    /// The members seated, this one included.
    public var userCount: Int { members.count + 1 }

    /// The same fields as a two-member `room_joined` (so a client that reads
    /// only those sees a consistent room), plus the group's.
    var json: JSON {
        [
            "type": .string(MessageType.roomJoined), "roomId": .string(roomId), "userCount": JSON(userCount),
            "isInitiator": .bool(false), "ready": .bool(userCount >= 2), "group": .bool(true), "max": JSON(max),
            "memberId": .string(memberId.rawValue), "members": .array(members.map(\.json)),
        ]
    }

    /// A server cannot hold more than 8 members, so more than 7 entries is
    /// not a room this client should believe; malformed entries are skipped.
    init?(json: JSON) {
        guard let roomId = json["roomId"]?.stringValue, let id = json["memberId"]?.stringValue.flatMap(MemberID.init),
            let max = json["max"]?.intValue, GroupSize.range.contains(max)
        else { return nil }
        let entries = json["members"]?.arrayValue ?? []
        guard entries.count < GroupSize.range.upperBound else { return nil }
        self.init(roomId: roomId, memberId: id, max: max, members: entries.compactMap(GroupPeer.init(json:)))
    }
}

/// Why a member's seat emptied (`member_left.reason`).
public enum MemberLeaving: String, Equatable, Sendable {
    /// It sent `leave_room`.
    case left
    /// Its socket closed or missed the heartbeat; it may come back.
    case disconnected
}

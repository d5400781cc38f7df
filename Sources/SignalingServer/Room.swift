import Signaling

/// One pairing: created by `client1` under a join code, accepted by `client2`;
/// or, with `group`, a room of up to `group.max` members (WireProtocol §2b).
public struct Room: Equatable, Sendable {
    /// A group room's members, in the order they were admitted: the creator
    /// first, then each acceptor. `client2` holds the first acceptor.
    public struct Group: Equatable, Sendable {
        public struct Member: Equatable, Sendable {
            public var deviceID: DeviceID
            public var memberID: MemberID
            public init(deviceID: DeviceID, memberID: MemberID) {
                self.deviceID = deviceID
                self.memberID = memberID
            }
        }

        public var max: Int
        public var members: [Member]

        public init(max: Int, members: [Member]) {
            self.max = max
            self.members = members
        }

        public func member(device: DeviceID) -> Member? { members.first { $0.deviceID == device } }
        public func index(of id: MemberID) -> Int? { members.firstIndex { $0.memberID == id } }
    }

    public enum State: Int, Sendable {
        case pending = 0
        case accepted = 1
    }

    public var joinCode: JoinCode
    public var client1: DeviceID
    public var client2: DeviceID?
    /// Set when the room is accepted, never before: the join code alone
    /// must never be enough to learn it.
    public var roomID: RoomID?
    /// The room and its code live while `now < expiry`.
    public var expiry: UnixTime
    public var state: State
    /// Nil for a two-member room, exactly as Inviso's.
    public var group: Group?

    public init(joinCode: JoinCode, client1: DeviceID, client2: DeviceID? = nil, roomID: RoomID? = nil, expiry: UnixTime, state: State = .pending, group: Group? = nil) {
        self.group = group
        self.joinCode = joinCode
        self.client1 = client1
        self.client2 = client2
        self.roomID = roomID
        self.expiry = expiry
        self.state = state
    }

    public func isLive(at now: UnixTime) -> Bool { now < expiry }
}

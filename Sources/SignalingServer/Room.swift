import Signaling

/// One pairing: created by `client1` under a join code, accepted by `client2`.
public struct Room: Equatable, Sendable {
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

    public init(joinCode: JoinCode, client1: DeviceID, client2: DeviceID? = nil, roomID: RoomID? = nil, expiry: UnixTime, state: State = .pending) {
        self.joinCode = joinCode
        self.client1 = client1
        self.client2 = client2
        self.roomID = roomID
        self.expiry = expiry
        self.state = state
    }

    public func isLive(at now: UnixTime) -> Bool { now < expiry }
}

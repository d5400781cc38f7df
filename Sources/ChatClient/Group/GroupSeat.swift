import PAKE
import Signaling

/// A member's seat in a group room, as `create` or `accept` grants it
/// (WireProtocol §2b): the id the others know it by, and the room's size.
public struct GroupSeat: Equatable, Sendable {
    public var memberID: MemberID
    public var max: Int

    public init(memberID: MemberID, max: Int) {
        self.memberID = memberID
        self.max = max
    }
}

/// What pairing by code hands a group (`SessionAction.enterGroup`): the
/// room, this member's seat and device, and the code's secret (every pair
/// proves it again, each over its own connection).
public struct GroupEntry: Equatable, Sendable {
    public var roomID: String
    public var seat: GroupSeat
    public var deviceID: String
    /// The six digits, and the secret words when this member knows them
    /// (a member who typed only the digits is unproven to everyone).
    public var locator: String
    public var secret: CodeSecret?
    /// This member typed the whole code (a joiner): as in a two-person chat,
    /// a member who does not prove it is then a failed pair, never an
    /// unproven one; the creator (who made the code) may accept one by its words.
    public var typedSecret: Bool
    public var expires: String?

    public init(roomID: String, seat: GroupSeat, deviceID: String, locator: String, secret: CodeSecret?, typedSecret: Bool,
                expires: String?) {
        self.typedSecret = typedSecret
        self.roomID = roomID
        self.seat = seat
        self.deviceID = deviceID
        self.locator = locator
        self.secret = secret
        self.expires = expires
    }
}

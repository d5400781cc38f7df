import Signaling
import Wire

/// Whom `GET /api/ice-servers` issues TURN credentials to.
enum TURNGrantee: Equatable, Sendable {
    /// Whoever asked without naming a room (the WireProtocol §1 default).
    case anyone
    /// A member of a live, accepted room who named it and itself.
    case member(roomID: RoomID, deviceID: DeviceID, roomExpiry: UnixTime)
    /// Nobody: a members-only server asked without a room.
    case nobody
}

/// TURN REST API credentials (draft-uberti-behave-turn-rest-00 §2.2):
/// `username = "<expiry>:<id>"`, `credential = base64(HMAC-SHA1(secret, username))`.
///
/// The TURN server checks only the HMAC and that the expiry has not passed,
/// so scoping happens at issuance: a member's credentials expire with its
/// room (at most `lifetimeSeconds` from now), and their id is a keyed hash of
/// room and device, stable for that member, so the TURN server's logs and
/// per-user quotas count members without learning room ids.
struct TURNCredentials: Equatable {
    var username: String
    var credential: String

    /// Hex characters of a member id (64 bits: the same length as an anonymous one).
    static let idLength = 16

    /// Nil for `.nobody`, or if OpenSSL fails.
    init?<G: RandomNumberGenerator>(for grantee: TURNGrantee, secret: [UInt8], lifetimeSeconds: Int64, now: UnixTime, random: inout G) {
        let expiry = now.seconds + lifetimeSeconds
        switch grantee {
        case .anyone:
            // One 64-bit draw: `idLength` hex characters.
            self.init(secret: secret, expiry: expiry, id: withUnsafeBytes(of: random.next()) { Hex.encode($0) })
        case .member(let roomID, let deviceID, let roomExpiry):
            guard let id = Self.memberID(secret: secret, roomID: roomID, deviceID: deviceID) else { return nil }
            self.init(secret: secret, expiry: min(expiry, roomExpiry.seconds), id: id)
        case .nobody:
            return nil
        }
    }

    init?(secret: [UInt8], expiry: Int64, id: String) {
        let username = "\(expiry):\(id)"
        guard let mac = ICEServerConfiguration.hmacSHA1(key: secret, message: Array(username.utf8)) else { return nil }
        self.username = username
        credential = Base64.encode(mac)
    }

    /// `HMAC-SHA1(secret, "chatcli-turn-member" NUL roomid NUL deviceId)`,
    /// hex, cut to `idLength`. The NULs keep this message apart from every
    /// username (digits, a colon, hex) signed with the same secret.
    static func memberID(secret: [UInt8], roomID: RoomID, deviceID: DeviceID) -> String? {
        let message = Array("chatcli-turn-member\0\(roomID.rawValue)\0\(deviceID.rawValue)".utf8)
        return ICEServerConfiguration.hmacSHA1(key: secret, message: message).map { String(Hex.encode($0).prefix(idLength)) }
    }
}

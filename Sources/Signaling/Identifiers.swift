import Wire

/// A 6-digit join code, the short secret two people exchange to pair.
///
/// Parsed at the edge: exactly six ASCII digits, nothing else (a JSON number
/// is not a join code, so leading zeros are never lost).
public struct JoinCode: Hashable, Sendable {
    public let rawValue: String

    public init?(_ string: String) {
        let utf8 = string.utf8
        guard utf8.count == 6, utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        rawValue = string
    }

    /// A code as a person types or pastes it: "123456", "123 456" or
    /// "123-456" (spaces and hyphens anywhere, surrounding blanks ignored).
    /// Only for input from people: the wire takes exactly six digits.
    public init?(userInput: String) {
        let digits = String(userInput.unicodeScalars.filter { $0 != " " && $0 != "-" && $0 != "\t" })
        self.init(digits)
    }

    /// A uniformly random code; `using` must be a CSPRNG outside tests.
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> JoinCode {
        let n = Int.random(in: 0..<1_000_000, using: &generator)
        let digits = String(n)
        // Zero-padded to exactly six digits, so no validation is needed.
        return JoinCode(unchecked: String(repeating: "0", count: 6 - digits.count) + digits)
    }

    private init(unchecked: String) { rawValue = unchecked }
}

/// A room id: 48 lowercase hex characters (24 random bytes), unguessable and
/// never derived from the join code.
public struct RoomID: Hashable, Sendable {
    public static let byteCount = 24
    public let rawValue: String

    public init?(_ string: String) {
        guard Hex.isLowercase(string, byteCount: RoomID.byteCount) else { return nil }
        rawValue = string
    }

    /// A fresh id; `using` must be a CSPRNG outside tests.
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> RoomID {
        RoomID(unchecked: Hex.encodeRandom(byteCount: byteCount, using: &generator))
    }

    private init(unchecked: String) { rawValue = unchecked }
}

/// A device (client) id as used by the REST API: 8…128 characters of
/// `[A-Za-z0-9_-]`. Also the shape of the WebSocket `clientId`.
public struct DeviceID: Hashable, Sendable {
    public static let lengths = 8...128
    public let rawValue: String

    public init?(_ string: String) {
        let utf8 = string.utf8
        guard DeviceID.lengths.contains(utf8.count), utf8.allSatisfy(DeviceID.isAllowed) else { return nil }
        rawValue = string
    }

    /// A fresh random id (32 hex characters); never reuse one across pairings.
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> DeviceID {
        DeviceID(unchecked: Hex.encodeRandom(byteCount: 16, using: &generator))
    }

    private init(unchecked: String) { rawValue = unchecked }

    private static func isAllowed(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }
}

/// The WebSocket `clientId` has the same shape as a device id.
public typealias ClientID = DeviceID

extension Hex {
    static func encodeRandom<G: RandomNumberGenerator>(byteCount: Int, using generator: inout G) -> String {
        // Eight bytes per draw: the system generator is a syscall per call.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(byteCount + 7)
        while bytes.count < byteCount {
            withUnsafeBytes(of: generator.next()) { bytes.append(contentsOf: $0) }
        }
        return Hex.encode(bytes.prefix(byteCount))
    }
}

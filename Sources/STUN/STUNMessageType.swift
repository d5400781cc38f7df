/// A STUN method: the 12-bit operation a message is about (RFC 8489 §5,
/// TURN methods from RFC 8656 §17). Unknown methods are representable so a
/// server can answer them with 400 instead of failing to parse.
public struct STUNMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16

    /// Methods are 12 bits wide; the upper bits are dropped so every value
    /// can be encoded into the message type.
    public init(rawValue: UInt16) { self.rawValue = rawValue & 0x0FFF }

    public static let binding = STUNMethod(rawValue: 0x001)
    public static let allocate = STUNMethod(rawValue: 0x003)
    public static let refresh = STUNMethod(rawValue: 0x004)
    public static let send = STUNMethod(rawValue: 0x006)
    public static let data = STUNMethod(rawValue: 0x007)
    public static let createPermission = STUNMethod(rawValue: 0x008)
    public static let channelBind = STUNMethod(rawValue: 0x009)

    public var description: String {
        switch self {
        case .binding: "Binding"
        case .allocate: "Allocate"
        case .refresh: "Refresh"
        case .send: "Send"
        case .data: "Data"
        case .createPermission: "CreatePermission"
        case .channelBind: "ChannelBind"
        default: "Method(0x\(String(rawValue, radix: 16)))"
        }
    }
}

/// The two class bits of the message type (RFC 8489 §5).
public enum STUNClass: UInt8, Hashable, Sendable, CaseIterable {
    case request = 0b00
    case indication = 0b01
    case successResponse = 0b10
    case errorResponse = 0b11

    public var isResponse: Bool { self == .successResponse || self == .errorResponse }
}

/// Method and class as carried in the 14-bit message type field.
///
/// The class bits are interleaved with the method bits (RFC 8489 §5, figure 3):
/// `M11..M7 C1 M6..M4 C0 M3..M0`, a leftover from RFC 3489 compatibility.
public struct STUNMessageType: Hashable, Sendable, CustomStringConvertible {
    public var method: STUNMethod
    public var messageClass: STUNClass

    public init(method: STUNMethod, messageClass: STUNClass) {
        self.method = method
        self.messageClass = messageClass
    }

    /// Decodes the 16-bit type field; `nil` when either of the two most
    /// significant bits is set, which no STUN message has (RFC 8489 §5).
    public init?(rawValue: UInt16) {
        guard rawValue & 0xC000 == 0 else { return nil }
        let m = (rawValue & 0x000F) | (rawValue & 0x00E0) >> 1 | (rawValue & 0x3E00) >> 2
        let c = (rawValue & 0x0010) >> 4 | (rawValue & 0x0100) >> 7
        guard let messageClass = STUNClass(rawValue: UInt8(c)) else { return nil }
        self.method = STUNMethod(rawValue: m)
        self.messageClass = messageClass
    }

    public var rawValue: UInt16 {
        let m = method.rawValue
        let c = UInt16(messageClass.rawValue)
        return (m & 0x000F) | (m & 0x0070) << 1 | (m & 0x0F80) << 2 | (c & 0b01) << 4 | (c & 0b10) << 7
    }

    public static let bindingRequest = STUNMessageType(method: .binding, messageClass: .request)
    public static let bindingSuccess = STUNMessageType(method: .binding, messageClass: .successResponse)
    public static let bindingError = STUNMessageType(method: .binding, messageClass: .errorResponse)
    public static let bindingIndication = STUNMessageType(method: .binding, messageClass: .indication)

    public var description: String { "\(method) \(messageClass)" }
}

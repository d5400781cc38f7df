/// Payload Protocol Identifiers used by WebRTC data channels (RFC 8831 §8).
public enum DataChannelPPID {
    public static let dcep: UInt32 = 50
    public static let string: UInt32 = 51
    /// Deprecated partial-message PPIDs, accepted as their whole-message kin.
    public static let stringPartial: UInt32 = 52
    public static let binary: UInt32 = 53
    public static let binaryPartial: UInt32 = 54
    public static let stringEmpty: UInt32 = 56
    public static let binaryEmpty: UInt32 = 57
}

/// DATA_CHANNEL_OPEN (RFC 8832 §5.1).
public struct DataChannelOpen: Equatable, Sendable {
    /// Bit 0x80 = unordered; low bits: 0 reliable, 1 rexmit limit, 2 timed.
    public var channelType: UInt8
    public var priority: UInt16
    public var reliabilityParameter: UInt32
    public var label: String
    public var protocolName: String

    public init(channelType: UInt8 = 0, priority: UInt16 = 0, reliabilityParameter: UInt32 = 0, label: String, protocolName: String = "") {
        self.channelType = channelType
        self.priority = priority
        self.reliabilityParameter = reliabilityParameter
        self.label = label
        self.protocolName = protocolName
    }

    public var ordered: Bool { channelType & 0x80 == 0 }
}

/// Data Channel Establishment Protocol messages (RFC 8832), sent with PPID 50.
public enum DCEPMessage: Equatable, Sendable {
    static let openType: UInt8 = 0x03
    static let ackType: UInt8 = 0x02

    case open(DataChannelOpen)
    case ack

    public static func decode(_ bytes: [UInt8]) -> DCEPMessage? {
        guard let type = bytes.first else { return nil }
        switch type {
        case ackType:
            return .ack
        case openType:
            guard bytes.count >= 12 else { return nil }
            let labelLength = Int(bytes[8]) << 8 | Int(bytes[9])
            let protocolLength = Int(bytes[10]) << 8 | Int(bytes[11])
            guard bytes.count >= 12 + labelLength + protocolLength else { return nil }
            let reliability = UInt32(bytes[4]) << 24 | UInt32(bytes[5]) << 16 | UInt32(bytes[6]) << 8 | UInt32(bytes[7])
            return .open(DataChannelOpen(
                channelType: bytes[1], priority: UInt16(bytes[2]) << 8 | UInt16(bytes[3]), reliabilityParameter: reliability,
                label: String(decoding: bytes[12..<(12 + labelLength)], as: UTF8.self),
                protocolName: String(decoding: bytes[(12 + labelLength)..<(12 + labelLength + protocolLength)], as: UTF8.self)))
        default:
            return nil
        }
    }

    public func encode() -> [UInt8] {
        switch self {
        case .ack:
            return [Self.ackType]
        case .open(let o):
            let label = Array(o.label.utf8.prefix(65535)), proto = Array(o.protocolName.utf8.prefix(65535))
            var out: [UInt8] = [Self.openType, o.channelType]
            out.appendU16(o.priority)
            out.appendU32(o.reliabilityParameter)
            out.appendU16(UInt16(label.count))
            out.appendU16(UInt16(proto.count))
            out.append(contentsOf: label)
            out.append(contentsOf: proto)
            return out
        }
    }
}

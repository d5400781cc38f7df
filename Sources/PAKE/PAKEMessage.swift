import Wire

/// A PAKE message on the `ctl` channel: `{"type":"pake","step":…}` with
/// hex fields. Parsed defensively: wrong sizes, bad hex, unknown steps and
/// anything too large are nil (and the handshake fails on them).
public enum PAKEMessage: Equatable, Sendable {
    /// The initiator's CPace share Ya.
    case share(y: [UInt8])
    /// The responder's share Yb with its confirmation tag Tb.
    case shareAndConfirm(y: [UInt8], tag: [UInt8])
    /// The initiator's confirmation tag Ta.
    case confirm(tag: [UInt8])
    /// "I run no PAKE with you": the sender has no secret for this code, or
    /// its peer never ran the PAKE. The chat is not proven by code.
    case unproven
    /// The sender's check failed (wrong code, or someone in the middle).
    case failed

    public static let type = "pake"
    public static let maxBytes = 1024

    /// Is this `ctl` JSON a PAKE message (well formed or not)?
    public static func isPAKE(_ json: JSON) -> Bool { json["type"]?.stringValue == type }

    public init?(json: JSON) {
        guard Self.isPAKE(json), let step = json["step"]?.stringValue else { return nil }
        switch step {
        case "share":
            guard let y = Self.bytes(json["y"], CPace.elementBytes) else { return nil }
            self = .share(y: y)
        case "share_confirm":
            guard let y = Self.bytes(json["y"], CPace.elementBytes), let tag = Self.bytes(json["tag"], CPace.tagBytes) else { return nil }
            self = .shareAndConfirm(y: y, tag: tag)
        case "confirm":
            guard let tag = Self.bytes(json["tag"], CPace.tagBytes) else { return nil }
            self = .confirm(tag: tag)
        case "unproven": self = .unproven
        case "failed": self = .failed
        default: return nil
        }
    }

    public init?(text: String) {
        guard text.utf8.count <= Self.maxBytes, let json = try? JSON.parse(text) else { return nil }
        self.init(json: json)
    }

    private static func bytes(_ value: JSON?, _ count: Int) -> [UInt8]? {
        guard let text = value?.stringValue, text.utf8.count == count * 2, let bytes = Hex.decode(text), bytes.count == count else { return nil }
        return bytes
    }

    public var text: String {
        var fields: [(String, JSON)] = [("type", .string(Self.type))]
        switch self {
        case .share(let y):
            fields += [("step", "share"), ("y", .string(Hex.encode(y)))]
        case .shareAndConfirm(let y, let tag):
            fields += [("step", "share_confirm"), ("y", .string(Hex.encode(y))), ("tag", .string(Hex.encode(tag)))]
        case .confirm(let tag):
            fields += [("step", "confirm"), ("tag", .string(Hex.encode(tag)))]
        case .unproven: fields.append(("step", "unproven"))
        case .failed: fields.append(("step", "failed"))
        }
        return JSON.object(fields).serialized
    }
}

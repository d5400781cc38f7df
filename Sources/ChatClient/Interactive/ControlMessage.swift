import Wire

/// One JSON object on the `ctl` channel (WireProtocol.md §3). Parsed defensively:
/// anything too large, not an object, of an unknown `type` or with a bad
/// field is nil and ignored, so newer peers can add types freely.
public enum ControlMessage: Equatable, Sendable {
    /// `{"type":"name","name":"…"}`: the peer's display name, as sent:
    /// peer text, to be cleaned (`DisplayName`) before it is shown.
    case name(String)
    /// `{"type":"verified","sas":"…"}`: the peer compared the safety words
    /// aloud and they matched; `sas` says which words (optional on input).
    case verified(sas: String?)

    /// Far more than any message we understand needs.
    public static let maxBytes = 4096

    public init?(text: String) {
        guard text.utf8.count <= Self.maxBytes, let json = try? JSON.parse(text) else { return nil }
        self.init(json: json)
    }

    /// From an already parsed `ctl` message (the session parses each once).
    public init?(json: JSON) {
        guard let type = json["type"]?.stringValue else { return nil }
        switch type {
        case "name":
            guard let name = json["name"]?.stringValue else { return nil }
            self = .name(name)
        case "verified":
            let sas = json["sas"]
            if let sas, sas.stringValue == nil, !sas.isNull { return nil }
            self = .verified(sas: sas?.stringValue)
        default:
            return nil
        }
    }

    public var text: String {
        switch self {
        case .name(let name): return JSON.object(["type": "name", "name": .string(name)]).serialized
        case .verified(let sas): return JSON.object(["type": "verified", "sas": sas.map(JSON.string)]).serialized
        }
    }
}

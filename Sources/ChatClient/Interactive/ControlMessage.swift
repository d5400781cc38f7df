import Wire

/// One JSON object on the `ctl` channel (PROTOCOL §3). Parsed defensively:
/// anything too large, not an object, of an unknown `type` or with a bad
/// field is nil and ignored, so newer peers can add types freely.
public enum ControlMessage: Equatable, Sendable {
    /// `{"type":"name","name":"…"}`: the peer's display name.
    case name(String)
    /// `{"type":"verified","sas":"…"}`: the peer compared the safety words
    /// aloud and they matched; `sas` says which words (optional on input).
    case verified(sas: String?)

    /// Far more than any message we understand needs.
    public static let maxBytes = 4096

    public init?(text: String) {
        guard text.utf8.count <= Self.maxBytes, let json = try? JSON.parse(text), let type = json["type"]?.stringValue else {
            return nil
        }
        switch type {
        case "name":
            guard let raw = json["name"]?.stringValue, let name = DisplayName.clean(raw) else { return nil }
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

/// A display name as it may be shown: peer text sanitized (no terminal
/// controls, no bidi overrides or other invisible format characters that
/// could make it pose as something else), whitespace runs made one space,
/// at most 32 characters.
public enum DisplayName {
    public static let maxCharacters = 32

    public static func clean(_ raw: String) -> String? {
        let visible = String(String.UnicodeScalarView(TerminalText.sanitize(raw).unicodeScalars.filter {
            $0.properties.generalCategory != .format
        }))
        let words = visible.split(whereSeparator: { $0.isWhitespace })
        let joined = words.joined(separator: " ")
        let name = String(joined.prefix(maxCharacters)).trimmingSpaces
        return name.isEmpty ? nil : name
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}

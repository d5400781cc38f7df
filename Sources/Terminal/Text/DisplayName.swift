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

private extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}

/// A received name or relative path made safe to create under the target
/// folder (parse, don't validate): no absolute paths, no `.` or `..`, no
/// empty components, no NUL, control or bidi characters, no backslashes, no
/// names Windows reserves, no trailing dot or space. Received bytes become a
/// `SafePath` here or are refused with the reason.
public struct SafePath: Equatable, Hashable, Sendable, CustomStringConvertible {
    public let components: [String]

    public var description: String { components.joined(separator: "/") }
    public var name: String { components.last ?? "" }

    public enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        case empty, absolute, tooLong, dotComponent, emptyComponent, forbiddenCharacter, reservedName, trailingDotOrSpace
        /// A `..` component: the path would climb out of the folder.
        case leavesFolder
        /// A `/` where a single name belongs (the offered file or folder).
        case separator

        public var description: String {
            switch self {
            case .empty: "an empty name"
            case .absolute: "an absolute path"
            case .tooLong: "a name that is too long"
            case .dotComponent: "a '.' component"
            case .leavesFolder: "a '..' component, a path that leaves the folder"
            case .separator: "a '/', a path where a single name belongs"
            case .emptyComponent: "an empty path component"
            case .forbiddenCharacter: "a control, bidi, NUL or backslash character"
            case .reservedName: "a reserved device name"
            case .trailingDotOrSpace: "a name ending in a dot or space"
            }
        }
    }

    /// A relative `/`-separated path.
    public init(relative text: String) throws(Refusal) {
        guard !text.isEmpty else { throw .empty }
        guard text.utf8.count <= TransferMessage.maxPathBytes else { throw .tooLong }
        guard !text.hasPrefix("/") else { throw .absolute }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        for part in parts { try Self.check(component: part) }
        components = parts
    }

    /// A single name (the offered file or folder).
    public init(name text: String) throws(Refusal) {
        guard !text.isEmpty else { throw .empty }
        guard !text.hasPrefix("/") else { throw .absolute }
        if text.contains("/") {
            throw text.split(separator: "/").contains("..") ? .leavesFolder : .separator
        }
        try Self.check(component: text)
        components = [text]
    }

    init(components: [String]) { self.components = components }

    public func appending(_ other: SafePath) -> SafePath { SafePath(components: components + other.components) }

    static func check(component: String) throws(Refusal) {
        guard !component.isEmpty else { throw .emptyComponent }
        guard component.utf8.count <= TransferMessage.maxNameBytes else { throw .tooLong }
        guard component != ".." else { throw .leavesFolder }
        guard component != "." else { throw .dotComponent }
        for scalar in component.unicodeScalars where isForbidden(scalar) { throw .forbiddenCharacter }
        guard let last = component.unicodeScalars.last, last != ".", last != " " else { throw .trailingDotOrSpace }
        let stem = component.split(separator: ".", maxSplits: 1).first.map { $0.uppercased() } ?? ""
        guard !reservedNames.contains(stem.trimmingSpaces) else { throw .reservedName }
    }

    static func isForbidden(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x00...0x1F, 0x7F...0x9F: true          // C0, DEL, C1
        case 0x5C: true                              // backslash: a separator on Windows
        case 0x200E, 0x200F, 0x061C: true            // LRM, RLM, ALM
        case 0x202A...0x202E, 0x2066...0x2069: true  // bidi embeddings, overrides, isolates
        case 0x2028, 0x2029, 0xFEFF: true            // line/paragraph separators, BOM
        default: false
        }
    }

    static let reservedNames: Set<String> = {
        var names: Set<String> = ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"]
        for n in 0...9 { names.insert("COM\(n)"); names.insert("LPT\(n)") }
        return names
    }()
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }

    /// At most `limit` UTF-8 bytes, cut at a character boundary.
    public func truncatedUTF8(_ limit: Int) -> String {
        guard utf8.count > limit else { return self }
        var out = ""
        for c in self {
            if out.utf8.count + c.utf8.count > limit { break }
            out.append(c)
        }
        return out
    }
}

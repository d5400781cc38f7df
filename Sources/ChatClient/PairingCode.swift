import PAKE
import Signaling

/// A code as a person types, pastes or clicks it: the 6-digit locator the
/// server knows, then optionally the secret the server never sees.
///
/// Printed one way only (`123456-brave-calm`), read many ways: upper case,
/// spaces or extra dashes anywhere ("123 456 Brave Calm", "123-456--brave"),
/// no dash between the words ("123456bravecalm"), and the whole invite link
/// (`https://server/j/123456#brave-calm`, the secret in the fragment).
public struct PairingCode: Equatable, Sendable {
    public let locator: String
    public let secret: CodeSecret?
    /// The server a pasted link points at (`https://server`), if the code was a link.
    public let linkServer: String?

    public init?(userInput: String) {
        guard case .success(let code) = Self.parse(userInput) else { return nil }
        self = code
    }

    init(locator: String, secret: CodeSecret?, linkServer: String?) {
        self.locator = locator
        self.secret = secret
        self.linkServer = linkServer
    }

    /// What is wrong with a code that does not parse, for the one sentence
    /// that says so (`ClientError.invalidCode`).
    public enum Problem: Error, Equatable, Sendable {
        case digits(String)
        case unknownWord(String, suggestion: String?)
        case wordCount(Int)
    }

    public static func parse(_ userInput: String) -> Result<PairingCode, Problem> {
        var text = userInput.trimmingCharacters(in: " \t\r\n")
        var server: String?
        if let link = Self.splitLink(text) {
            server = link.server
            text = link.locator + (link.fragment.map { "-" + $0 } ?? "")
        }
        let firstLetter = text.firstIndex(where: { $0.isLetter })
        let digits = String(text[..<(firstLetter ?? text.endIndex)])
        guard let code = JoinCode(userInput: digits) else { return .failure(.digits(digits)) }
        guard let firstLetter else { return .success(PairingCode(locator: code.rawValue, secret: nil, linkServer: server)) }
        switch Self.parseSecret(String(text[firstLetter...])) {
        case .success(let secret): return .success(PairingCode(locator: code.rawValue, secret: secret, linkServer: server))
        case .failure(let problem): return .failure(problem)
        }
    }

    /// `https://host[:port]/j/123456#words`: the server, the digits and the fragment.
    static func splitLink(_ text: String) -> (server: String, locator: String, fragment: String?)? {
        let lower = text.lowercased()
        let scheme = lower.hasPrefix("https://") ? 8 : lower.hasPrefix("http://") ? 7 : 0
        guard scheme > 0 else { return nil }
        let afterScheme = text.index(text.startIndex, offsetBy: scheme)
        // The first "/j/" after the host.
        var cursor = afterScheme
        var pathStart: String.Index?
        while cursor < text.endIndex {
            if text[cursor...].hasPrefix("/j/") { pathStart = cursor; break }
            cursor = text.index(after: cursor)
        }
        guard let pathStart else { return nil }
        let server = String(text[..<pathStart])
        let rest = text[text.index(pathStart, offsetBy: 3)...]
        let hash = rest.firstIndex(of: "#")
        let locator = String(rest[..<(hash ?? rest.endIndex)])
        let fragment = hash.map { String(rest[rest.index(after: $0)...]).removingPercentEncoding() }
        return (server, locator, fragment.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The words after the digits: separated by dashes or spaces, or run together.
    static func parseSecret(_ text: String) -> Result<CodeSecret, Problem> {
        let parts = text.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init)
        if let unknown = parts.first(where: { CodeSecret.index(of: $0) == nil }) {
            // "bravecalm": the words typed without a dash.
            if parts.count == 1, let words = Self.splitRunTogether(unknown), let secret = CodeSecret(text: words.joined(separator: "-")) {
                return .success(secret)
            }
            return .failure(.unknownWord(unknown, suggestion: CodeSecret.closestWord(to: unknown)))
        }
        guard parts.count == CodeSecret.wordCount, let secret = CodeSecret(text: parts.joined(separator: "-")) else {
            return .failure(.wordCount(parts.count))
        }
        return .success(secret)
    }

    /// The one way to split `text` into two list words, if exactly one exists.
    static func splitRunTogether(_ text: String) -> [String]? {
        let splits = (1..<max(text.count, 1)).compactMap { n -> [String]? in
            let first = String(text.prefix(n)), second = String(text.dropFirst(n))
            return CodeSecret.index(of: first) != nil && CodeSecret.index(of: second) != nil ? [first, second] : nil
        }
        return splits.count == 1 ? splits[0] : nil
    }
}

extension String {
    /// `%XX` escapes decoded (a link's fragment as a browser may copy it); the text as is when malformed.
    func removingPercentEncoding() -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(self.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
               let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self) ?? self
    }
}

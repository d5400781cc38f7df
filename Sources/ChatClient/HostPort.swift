/// Splits `host[:port]` or `[v6-literal][:port]` as URLs write it; nil for
/// an unclosed bracket or junk after one. Callers validate the parts.
enum HostPort {
    static func split(_ text: Substring) -> (host: Substring, port: Substring?)? {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if after.isEmpty { return (host, nil) }
            guard after.hasPrefix(":") else { return nil }
            return (host, after.dropFirst())
        }
        if let colon = text.lastIndex(of: ":") {
            return (text[..<colon], text[text.index(after: colon)...])
        }
        return (text, nil)
    }

    /// A port from its text: 1…65535.
    static func port(_ text: Substring) -> UInt16? {
        guard let p = UInt16(text), p > 0 else { return nil }
        return p
    }
}

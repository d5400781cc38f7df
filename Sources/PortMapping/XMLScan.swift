/// Just enough XML for UPnP device descriptions and SOAP answers: the text
/// of elements found by local name (any namespace prefix), in documents of
/// bounded size. No DTDs, no entities beyond the five predefined ones: a
/// hostile gateway's document can only fail to yield a value.
enum XMLScan {
    /// Each `<name>…</name>` (or `<p:name …>…</p:name>`) inner text, in order,
    /// at most `limit` of them.
    static func elements(_ name: String, in bytes: ArraySlice<UInt8>, limit: Int = 64) -> [ArraySlice<UInt8>] {
        let local = Array(name.utf8)
        var found: [ArraySlice<UInt8>] = []
        var index = bytes.startIndex
        while found.count < limit, let open = openTag(local, in: bytes, from: index) {
            guard let close = closeTag(local, in: bytes, from: open) else { break }
            found.append(bytes[open..<close.start])
            index = close.end
        }
        return found
    }

    /// The first element's text, entities decoded and whitespace trimmed.
    static func text(_ name: String, in bytes: ArraySlice<UInt8>) -> String? {
        elements(name, in: bytes, limit: 1).first.map { unescape(trim($0)) }
    }

    /// The index just past `<name>` or `<prefix:name attr…>`.
    private static func openTag(_ local: [UInt8], in bytes: ArraySlice<UInt8>, from start: Int) -> Int? {
        var index = start
        while let lt = bytes[index...].firstIndex(of: UInt8(ascii: "<")) {
            guard let gt = bytes[lt...].firstIndex(of: UInt8(ascii: ">")) else { return nil }
            let tag = bytes[(lt + 1)..<gt]
            if tag.first != UInt8(ascii: "/"), matches(tag, local) { return gt + 1 }
            index = gt + 1
        }
        return nil
    }

    private static func closeTag(_ local: [UInt8], in bytes: ArraySlice<UInt8>, from start: Int) -> (start: Int, end: Int)? {
        var index = start
        while let lt = bytes[index...].firstIndex(of: UInt8(ascii: "<")) {
            guard let gt = bytes[lt...].firstIndex(of: UInt8(ascii: ">")) else { return nil }
            let tag = bytes[(lt + 1)..<gt]
            if tag.first == UInt8(ascii: "/"), matches(tag.dropFirst(), local) { return (lt, gt + 1) }
            index = gt + 1
        }
        return nil
    }

    /// The tag's name, without prefix and attributes, equals `local`.
    private static func matches(_ tag: ArraySlice<UInt8>, _ local: [UInt8]) -> Bool {
        let name = tag.prefix { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") && $0 != 10 && $0 != 13 && $0 != UInt8(ascii: "/") }
        let unprefixed = name.lastIndex(of: UInt8(ascii: ":")).map { name[($0 + 1)...] } ?? name
        return unprefixed.elementsEqual(local)
    }

    static func trim(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let space: Set<UInt8> = [32, 9, 10, 13]
        guard let first = bytes.firstIndex(where: { !space.contains($0) }),
              let last = bytes.lastIndex(where: { !space.contains($0) }) else { return [] }
        return bytes[first...last]
    }

    static func unescape(_ bytes: ArraySlice<UInt8>) -> String {
        var text = String(decoding: bytes, as: UTF8.self)
        guard text.contains("&") else { return text }
        for (entity, value) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&")] {
            text = text.replacing(entity, with: value)
        }
        return text
    }

    /// Text made safe inside an element.
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(character)
            }
        }
        return out
    }
}

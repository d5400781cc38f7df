/// Parses IP literals as SDP writes them: dotted IPv4, and IPv6 in any
/// RFC 4291 §2.2 form (`::` compression, an embedded IPv4 tail), with an
/// optional `%zone` that is dropped. Anything else, hostnames included,
/// is `nil`.
enum IPAddressText {
    static func parse(_ text: String) -> [UInt8]? {
        if text.contains(":") { return parseIPv6(text) }
        return parseIPv4(Substring(text))
    }

    static func parseIPv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let value = UInt8(part)
            else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    static func parseIPv6(_ full: String) -> [UInt8]? {
        var text = Substring(full)
        if let zone = text.firstIndex(of: "%") { text = text[..<zone] }
        guard text.count <= 45 else { return nil }
        let halves = text.splitAtDoubleColons()
        guard halves.count <= 2 else { return nil }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 {
            guard head.count == 16 else { return nil }
            return head
        }
        guard let tail = groups(halves[1]), head.count + tail.count <= 14 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }

    /// Bytes of colon-separated hex groups, the last of which may be an
    /// IPv4 literal.
    private static func groups(_ text: Substring) -> [UInt8]? {
        if text.isEmpty { return [] }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        var bytes: [UInt8] = []
        for (index, part) in parts.enumerated() {
            if index == parts.count - 1, part.contains(".") {
                guard let v4 = parseIPv4(part) else { return nil }
                bytes += v4
                continue
            }
            guard (1...4).contains(part.count), part.allSatisfy(\.isHexDigit), let value = UInt16(part, radix: 16)
            else { return nil }
            bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
        }
        return bytes
    }
}

extension Substring {
    /// Splits at every `::`.
    fileprivate func splitAtDoubleColons() -> [Substring] {
        var result: [Substring] = []
        var start = startIndex
        var index = startIndex
        while index < endIndex {
            let next = self.index(after: index)
            if self[index] == ":", next < endIndex, self[next] == ":" {
                result.append(self[start..<index])
                start = self.index(after: next)
                index = start
                continue
            }
            index = next
        }
        result.append(self[start..<endIndex])
        return result
    }
}

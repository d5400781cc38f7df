/// Character classes and small parsers from RFC 9110 §5.6 / RFC 9112 used by
/// both message parsers.
enum HTTPSyntax {
    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")
    static let sp = UInt8(ascii: " ")
    static let htab = UInt8(ascii: "\t")
    static let colon = UInt8(ascii: ":")

    /// tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
    static func isTokenChar(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    static func isToken(_ bytes: ArraySlice<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy(isTokenChar)
    }

    /// field-vchar / SP / HTAB; obs-text (0x80–0xFF) is allowed, controls are not.
    static func isFieldValueChar(_ c: UInt8) -> Bool {
        c == htab || (c >= 0x20 && c != 0x7F)
    }

    static func isWhitespace(_ c: UInt8) -> Bool { c == sp || c == htab }

    /// Splits `bytes[range]` into lines at LF, dropping one CR before each LF
    /// (bare LF is accepted leniently, RFC 9112 §2.2).
    static func lines(_ bytes: [UInt8], _ range: Range<Int>) -> [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        var start = range.lowerBound
        var i = start
        while i < range.upperBound {
            if bytes[i] == lf {
                var end = i
                if end > start, bytes[end - 1] == cr { end -= 1 }
                out.append(bytes[start..<end])
                start = i + 1
            }
            i += 1
        }
        if start < range.upperBound { out.append(bytes[start..<range.upperBound]) }
        return out
    }

    static func string(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// Parses one `field-name ":" OWS field-value OWS` line.
    static func fieldLine(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> (name: String, value: String) {
        guard let colon = line.firstIndex(of: colon) else { throw .invalidHeaderName }
        let name = line[line.startIndex..<colon]
        // Whitespace before the colon is a smuggling vector: RFC 9112 §5.1 says reject.
        guard isToken(name) else { throw .invalidHeaderName }
        var value = line[(colon + 1)...]
        while let f = value.first, isWhitespace(f) { value = value.dropFirst() }
        while let l = value.last, isWhitespace(l) { value = value.dropLast() }
        guard value.allSatisfy(isFieldValueChar) else { throw .invalidHeaderValue }
        return (string(name), string(value))
    }

    /// Parses a header or trailer section. Continuation lines (obs-fold) are
    /// either rejected or, when `unfold` is set (responses), joined with a space.
    static func fields(_ lines: ArraySlice<ArraySlice<UInt8>>, unfold: Bool) throws(HTTPParseError) -> HTTPHeaders {
        var headers = HTTPHeaders()
        var pending: (name: String, value: String)?
        for line in lines {
            if let f = line.first, isWhitespace(f) {
                guard unfold else { throw .obsoleteLineFolding }
                // A response may start its header section with a whitespace-
                // preceded line; RFC 9112 §2.2 says to ignore such lines.
                guard let p = pending else { continue }
                var cont = line
                while let c = cont.first, isWhitespace(c) { cont = cont.dropFirst() }
                while let c = cont.last, isWhitespace(c) { cont = cont.dropLast() }
                guard cont.allSatisfy(isFieldValueChar) else { throw .invalidHeaderValue }
                pending = (p.name, cont.isEmpty ? p.value : p.value + " " + string(cont))
                continue
            }
            if let p = pending { headers.add(p.name, p.value) }
            pending = try fieldLine(line)
        }
        if let p = pending { headers.add(p.name, p.value) }
        return headers
    }

    /// `HTTP/1.1` → (1, 1); nil when not `HTTP/` DIGIT "." DIGIT.
    static func version(_ bytes: ArraySlice<UInt8>) -> (major: Int, minor: Int)? {
        let prefix = Array("HTTP/".utf8)
        guard bytes.count == 8, bytes.starts(with: prefix) else { return nil }
        let b = Array(bytes)
        guard isDigit(b[5]), b[6] == UInt8(ascii: "."), isDigit(b[7]) else { return nil }
        return (Int(b[5] - 48), Int(b[7] - 48))
    }

    static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }

    /// The `Content-Length` of a message: nil when absent. Repeated identical
    /// values (also as a list) are accepted as one (RFC 9112 §6.3 item 5);
    /// anything else is invalid. Values too large for `Int` saturate so that the
    /// caller reports them as too large, not as malformed.
    static func contentLength(_ headers: HTTPHeaders) throws(HTTPParseError) -> Int? {
        var result: Int?
        for value in headers.values("Content-Length") {
            for item in value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                var digits = item[...]
                while let f = digits.first, isWhitespace(f) { digits = digits.dropFirst() }
                while let l = digits.last, isWhitespace(l) { digits = digits.dropLast() }
                guard !digits.isEmpty, digits.allSatisfy(isDigit) else { throw .invalidContentLength }
                var n = 0
                for d in digits {
                    let (m, o1) = n.multipliedReportingOverflow(by: 10)
                    let (s, o2) = m.addingReportingOverflow(Int(d - 48))
                    n = (o1 || o2) ? Int.max : s
                }
                if let r = result, r != n { throw .invalidContentLength }
                result = n
            }
        }
        return result
    }

    /// The transfer codings listed in `Transfer-Encoding`, lowercased, in order.
    static func transferCodings(_ headers: HTTPHeaders) -> [String] {
        headers.values("Transfer-Encoding").flatMap { value in
            value.split(separator: ",").map { $0.trimmingSpaces().lowercased() }
        }
    }
}

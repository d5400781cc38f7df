extension JSON {
    /// Compact JSON text (no spaces), keys in insertion order.
    public var serialized: String { String(decoding: serializedBytes, as: UTF8.self) }

    public var serializedBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        write(to: &out)
        return out
    }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let d): out.append(contentsOf: JSON.format(d).utf8)
        case .integer(let i): out.append(contentsOf: String(i).utf8)
        case .string(let s): JSON.writeString(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSON.writeString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func format(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d.rounded() == d, let i = Int128(exactly: d) { return String(i) }
        return "\(d)"
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Escapes what RFC 8259 requires (quote, backslash, C0), and also DEL,
    /// the C1 controls (U+0080–U+009F, which some terminals act on when the
    /// output is shown raw), the bidi controls (which make a line display in
    /// another order than it is written: Trojan Source, CVE-2021-42574) and
    /// the line and paragraph separators (line breaks to some readers):
    /// `--json` output is often read on a terminal or with `grep`, and the
    /// text is peer text. The value is unchanged for any JSON parser.
    private static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for scalar in s.unicodeScalars {
            let v = scalar.value
            switch v {
            case 0x22: out.append(contentsOf: "\\\"".utf8)
            case 0x5C: out.append(contentsOf: "\\\\".utf8)
            case 0x0A: out.append(contentsOf: "\\n".utf8)
            case 0x0D: out.append(contentsOf: "\\r".utf8)
            case 0x09: out.append(contentsOf: "\\t".utf8)
            case 0x00..<0x20, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
                out.append(contentsOf: "\\u".utf8)
                for shift in [12, 8, 4, 0] { out.append(hexDigits[Int((v >> UInt32(shift)) & 0xF)]) }
            case 0..<0x80:
                out.append(UInt8(v))
            default:
                UTF8.encode(scalar) { out.append($0) }
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// Standard base64 (RFC 4648 §4, with `=` padding), as used by
/// `Sec-WebSocket-Key`/`Sec-WebSocket-Accept` and TURN REST credentials.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Maps an ASCII byte to its 6-bit value; 0xFF marks bytes outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()

    public static func encode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var it = bytes.makeIterator()
        while let b0 = it.next() {
            let b1 = it.next()
            let b2 = it.next()
            let n = UInt32(b0) << 16 | UInt32(b1 ?? 0) << 8 | UInt32(b2 ?? 0)
            out.append(alphabet[Int(n >> 18 & 0x3F)])
            out.append(alphabet[Int(n >> 12 & 0x3F)])
            out.append(b1 == nil ? UInt8(ascii: "=") : alphabet[Int(n >> 6 & 0x3F)])
            out.append(b2 == nil ? UInt8(ascii: "=") : alphabet[Int(n & 0x3F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Strict decoding: the length must be a multiple of four, `=` may only pad
    /// the last group, and no whitespace is skipped. Returns nil otherwise, so a
    /// malformed key is rejected rather than silently repaired.
    public static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 4 * 3)
        var i = 0
        while i < chars.count {
            let isLast = i + 4 == chars.count
            let pad = isLast ? (chars[i + 3] == UInt8(ascii: "=") ? (chars[i + 2] == UInt8(ascii: "=") ? 2 : 1) : 0) : 0
            var n: UInt32 = 0
            for j in 0..<4 {
                let c = chars[i + j]
                if j >= 4 - pad {
                    n <<= 6
                    continue
                }
                let v = values[Int(c)]
                guard v != 0xFF else { return nil }
                n = n << 6 | UInt32(v)
            }
            out.append(UInt8(truncatingIfNeeded: n >> 16))
            if pad < 2 { out.append(UInt8(truncatingIfNeeded: n >> 8)) }
            if pad < 1 { out.append(UInt8(truncatingIfNeeded: n)) }
            // Non-canonical encodings (stray bits under the padding) are rejected.
            if pad == 1, n & 0xFF != 0 { return nil }
            if pad == 2, n & 0xFFFF != 0 { return nil }
            i += 4
        }
        return out
    }
}

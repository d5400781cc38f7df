/// The draft's string encodings (draft-irtf-cfrg-cpace, appendix "CPace
/// function definitions"): LEB128 length prefixes, `lv_cat` and the ordered
/// concatenation `o_cat`. Prefix-free, so no two inputs hash alike.
public enum LengthValue {
    /// `prepend_len`: the LEB128 length of `data`, then `data`.
    public static func prependLength(_ data: [UInt8]) -> [UInt8] {
        var length = data.count
        var out: [UInt8] = []
        repeat {
            out.append(length < 128 ? UInt8(length) : UInt8(length & 0x7F) | 0x80)
            length >>= 7
        } while length > 0
        return out + data
    }

    /// `lv_cat(a0, a1, …)`.
    public static func concatenate(_ parts: [UInt8]...) -> [UInt8] {
        parts.flatMap(prependLength)
    }

    /// `lexiographically_larger(a, b)`.
    public static func isLarger(_ a: [UInt8], than b: [UInt8]) -> Bool {
        for (x, y) in zip(a, b) where x != y { return x > y }
        return a.count > b.count
    }

    /// `o_cat(a, b)`: "oc", then the larger string first.
    public static func orderedConcatenation(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        Array("oc".utf8) + (isLarger(a, than: b) ? a + b : b + a)
    }
}

/// An incremental UTF-8 validator (RFC 3629), so a text message split across
/// fragments — even inside a code point — is checked as it arrives and
/// rejected at the first bad byte, without buffering to re-decode.
struct UTF8Validator: Sendable {
    /// Continuation bytes still expected for the current code point.
    private var needed: UInt8 = 0
    /// Allowed range of the next continuation byte (narrowed after E0, ED, F0, F4
    /// to exclude overlong forms, surrogates and code points above U+10FFFF).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// True if no code point is left unfinished.
    var isComplete: Bool { needed == 0 }

    /// Checks `bytes`; returns false at the first byte that cannot be valid.
    mutating func validate<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        for b in bytes {
            if needed == 0 {
                switch b {
                case 0x00...0x7F: continue
                case 0xC2...0xDF: needed = 1
                case 0xE0: needed = 2; lower = 0xA0
                case 0xE1...0xEC, 0xEE...0xEF: needed = 2
                case 0xED: needed = 2; upper = 0x9F
                case 0xF0: needed = 3; lower = 0x90
                case 0xF1...0xF3: needed = 3
                case 0xF4: needed = 3; upper = 0x8F
                default: return false
                }
            } else {
                guard b >= lower, b <= upper else { return false }
                lower = 0x80
                upper = 0xBF
                needed -= 1
            }
        }
        return true
    }

    static func isValid<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        var v = UTF8Validator()
        return v.validate(bytes) && v.isComplete
    }
}

/// Makes peer text safe to print on a terminal: escape sequences (CSI, OSC,
/// DCS, SOS/PM/APC, and two-byte ESC sequences) are removed whole, as are C0
/// controls other than tab and newline, DEL and C1 controls (U+0080–U+009F,
/// which some terminals act on). Invalid UTF-8 has already become U+FFFD by
/// the time text is a `String`.
public enum TerminalText {
    public static func sanitize(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        while let c = pending ?? scalars.next() {
            pending = nil
            switch c.value {
            case 0x1B:   // ESC
                guard let next = scalars.next() else { break }
                switch next {
                case "[": skipCSI(&scalars)
                case "]", "P", "X", "^", "_": skipString(&scalars)
                default: break   // a two-byte sequence: both dropped
                }
            case 0x9B: skipCSI(&scalars)
            case 0x9D, 0x90, 0x98, 0x9E, 0x9F: skipString(&scalars)
            case 0x09, 0x0A: out.append(c)
            case 0x00..<0x20, 0x7F, 0x80..<0xA0: break
            default: out.append(c)
            }
        }
        return String(out)
    }

    /// CSI: parameter and intermediate bytes up to a final byte 0x40–0x7E.
    private static func skipCSI(_ it: inout String.UnicodeScalarView.Iterator) {
        while let c = it.next() {
            if (0x40...0x7E).contains(c.value) { return }
            if !(0x20...0x3F).contains(c.value) { return }   // malformed: stop at the intruder
        }
    }

    /// OSC/DCS/SOS/PM/APC: up to BEL or ST (ESC \ or U+009C).
    private static func skipString(_ it: inout String.UnicodeScalarView.Iterator) {
        var sawEscape = false
        while let c = it.next() {
            if c.value == 0x07 || c.value == 0x9C { return }
            if sawEscape && c == "\\" { return }
            sawEscape = c.value == 0x1B
        }
    }
}

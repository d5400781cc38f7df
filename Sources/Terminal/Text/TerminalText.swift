/// Makes peer text safe to print on a terminal: escape sequences (CSI, OSC,
/// DCS, SOS/PM/APC, and two-byte ESC sequences) are removed whole, as are C0
/// controls other than tab and newline, DEL and C1 controls (U+0080–U+009F,
/// which some terminals act on). Invalid UTF-8 has already become U+FFFD by
/// the time text is a `String`.
///
/// Invisible characters that change how the text around them reads are
/// removed too (see `isHiddenFormatting`): a peer must not make its line
/// display differently from what it says (Trojan Source, CVE-2021-42574).
///
/// Combining marks are capped at `maxCombiningMarks` per character: a base
/// with hundreds of marks ("Zalgo" text) draws over the lines above and
/// below it, over the prompt and other messages. Real text needs few:
/// Vietnamese stacks two, Tibetan and pointed Hebrew three or four.
public enum TerminalText {
    public static let maxCombiningMarks = 4

    public static func sanitize(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        var flagTags = FlagTags()
        var marks = 0
        while let c = pending ?? scalars.next() {
            pending = nil
            if flagTags.take(c, into: &out) { continue }
            if isHiddenFormatting(c) { continue }
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
            // Line and paragraph separators: a line break is what they mean
            // (and a paragraph break ends any bidi run the terminal applies).
            case 0x2028, 0x2029: out.append("\n")
            default:
                if isCombiningMark(c) {
                    if marks >= maxCombiningMarks { continue }
                    marks += 1
                } else if c.value != 0x200C && c.value != 0x200D {
                    // ZWNJ and ZWJ join marks to the same character: they start no new one.
                    marks = 0
                }
                out.append(c)
                flagTags.started(after: c)
            }
        }
        return String(out)
    }

    /// Format characters a reader cannot see that reorder or hide text:
    /// - the bidi embeddings, overrides and pop (U+202A–U+202E) and isolates
    ///   (U+2066–U+2069): they make a line display in another order than it
    ///   is written, and leak into whatever the terminal prints after them;
    /// - the bidi marks LRM, RLM and ALM (U+200E, U+200F, U+061C): invisible,
    ///   and enough to flip where neutral characters such as digits and
    ///   punctuation appear next to right-to-left letters;
    /// - the deprecated format controls U+206A–U+206F (symmetric swapping,
    ///   Arabic form shaping, digit shapes): they change how later text looks;
    /// - the interlinear annotation controls U+FFF9–U+FFFB: text between them
    ///   may be shown as an annotation, or not at all.
    /// Kept: the letters of right-to-left scripts (the terminal's own bidi
    /// handling, if any, still applies to them), ZWJ U+200D and ZWNJ U+200C
    /// (emoji sequences and Persian, Indic words need them) and variation
    /// selectors (emoji presentation).
    static func isHiddenFormatting(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x206A...0x206F, 0xFFF9...0xFFFB: return true
        default: return false
        }
    }

    static func isCombiningMark(_ c: Unicode.Scalar) -> Bool {
        guard c.value >= 0x0300 else { return false }
        switch c.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
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

/// Tag characters (U+E0000–U+E007F) are invisible: a peer could hide a whole
/// second text inside an ordinary-looking line, which a reader would then
/// copy along unknowingly (into a search box, an AI assistant…). Their only
/// visible use is a subdivision flag such as England's: U+1F3F4 (black flag),
/// one to six tag letters or digits, then U+E007F (cancel tag). Exactly that
/// is kept; every other tag character is dropped.
struct FlagTags {
    /// The tag letters after a black flag, while a flag sequence may still
    /// be complete; nil otherwise.
    private var run: [Unicode.Scalar]?
    static let blackFlag: UInt32 = 0x1F3F4
    static let cancel: UInt32 = 0xE007F
    static let maxLetters = 6

    /// Consumes `c` if it is a tag character (appending a complete flag
    /// sequence's tags to `out`); false for anything else, which also ends
    /// any run in progress (an unfinished run is dropped).
    mutating func take(_ c: Unicode.Scalar, into out: inout String.UnicodeScalarView) -> Bool {
        guard (0xE0000...0xE007F).contains(c.value) else {
            run = nil
            return false
        }
        defer { if c.value == Self.cancel { run = nil } }
        guard var letters = run else { return true }
        if c.value == Self.cancel {
            if !letters.isEmpty {
                out.append(contentsOf: letters)
                out.append(c)
            }
        } else if Self.isLetterOrDigit(c), letters.count < Self.maxLetters {
            letters.append(c)
            run = letters
        } else {
            run = nil
        }
        return true
    }

    /// Called after `c` was kept: a black flag may start a sequence.
    mutating func started(after c: Unicode.Scalar) {
        if c.value == Self.blackFlag { run = [] }
    }

    private static func isLetterOrDigit(_ c: Unicode.Scalar) -> Bool {
        (0xE0030...0xE0039).contains(c.value) || (0xE0061...0xE007A).contains(c.value)
    }
}

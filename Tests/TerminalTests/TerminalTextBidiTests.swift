import Terminal
import TestSupport
import Testing

/// Trojan Source and hidden text: peer text cannot reorder itself on screen
/// or carry invisible content, while real writing (right-to-left scripts,
/// emoji sequences) comes through untouched.
@Suite struct TerminalTextBidiTests {
    static let removed: [UInt32] = [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069,
                                    0x200E, 0x200F, 0x061C, 0x206A, 0x206F, 0xFFF9, 0xFFFA, 0xFFFB]

    @Test func bidiControlsAndMarksAreRemoved() {
        #expect(TerminalText.sanitize("abc\u{202E}fed") == "abcfed")
        #expect(TerminalText.sanitize("if (admin\u{2067} \u{2066}// check\u{2069}\u{2066}) {") == "if (admin // check) {")
        for value in Self.removed {
            let scalar = Unicode.Scalar(value)!
            #expect(TerminalText.sanitize("a\(scalar)b") == "ab", "U+\(String(value, radix: 16, uppercase: true))")
        }
    }

    @Test(arguments: [
        "שלום עולם",                  // Hebrew
        "مرحبا بالعالم",               // Arabic
        "می‌خواهم",                    // Persian: ZWNJ inside the word
        "👨‍👩‍👧‍👦 family",                  // ZWJ sequence
        "❤️ 🇫🇷 👍🏽",                    // variation selector, regional indicators, skin tone
        "🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F} England",   // a subdivision flag
        "e\u{0301}t\u{00E9} café",   // combining accent
    ])
    func ordinaryWritingIsKept(text: String) {
        #expect(TerminalText.sanitize(text) == text)
    }

    @Test func tagCharactersOutsideAFlagAreDropped() {
        let hidden = "\u{E0069}\u{E0067}\u{E006E}\u{E006F}\u{E0072}\u{E0065}"   // "ignore" in tags
        #expect(TerminalText.sanitize("hello" + hidden + " there") == "hello there")
        #expect(TerminalText.sanitize("🏴" + hidden + "x") == "🏴x", "no cancel tag: not a flag")
        #expect(TerminalText.sanitize("🏴" + hidden + "\u{E0073}\u{E007F}") == "🏴", "seven letters: too long for a flag")
        #expect(TerminalText.sanitize("🏴\u{E007F}") == "🏴", "no letters")
        #expect(TerminalText.sanitize("🏴\u{202E}\u{E0067}\u{E0062}\u{E007F}") == "🏴", "something in between ends the flag")
    }

    @Test func lineAndParagraphSeparatorsBecomeNewlines() {
        #expect(TerminalText.sanitize("a\u{2028}b\u{2029}c") == "a\nb\nc")
    }

    /// Random text, biased towards the dangerous ranges: the result never
    /// holds a control, an escape, a bidi or hidden format character or a
    /// stray tag, and sanitizing it again changes nothing.
    @Test func randomTextNeverKeepsAControlOrBidiCharacter() {
        var rng = SeededRandom(seed: 0x7E47)
        let pools: [ClosedRange<UInt32>] = [0...0xFF, 0x0600...0x06FF, 0x2000...0x206F, 0xFE00...0xFFFF,
                                            0x1F3F0...0x1F3F8, 0xE0000...0xE007F, 0...0x10FFFF]
        for _ in 0..<20_000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0..<40, using: &rng) {
                let pool = pools.randomElement(using: &rng)!
                if let scalar = Unicode.Scalar(UInt32.random(in: pool, using: &rng)) { scalars.append(scalar) }
            }
            let clean = TerminalText.sanitize(String(scalars))
            let bad = Array(clean.unicodeScalars).indices.first { Self.forbidden(Array(clean.unicodeScalars), at: $0) }
            #expect(bad == nil, "\(Array(String(scalars).unicodeScalars).map { String($0.value, radix: 16) })")
            #expect(TerminalText.sanitize(clean) == clean)
        }
    }

    static func forbidden(_ s: [Unicode.Scalar], at i: Int) -> Bool {
        let v = s[i].value
        if v < 0x20 { return v != 0x09 && v != 0x0A }
        if (0x7F..<0xA0).contains(v) || removed.contains(v) || v == 0x2028 || v == 0x2029 { return true }
        guard (0xE0000...0xE007F).contains(v) else { return false }
        // A tag must sit inside 🏴 + 1–6 tag letters + cancel tag.
        var start = i
        while start > 0, (0xE0000...0xE007F).contains(s[start - 1].value) { start -= 1 }
        var end = i
        while end + 1 < s.count, (0xE0000...0xE007F).contains(s[end + 1].value) { end += 1 }
        let letters = s[start..<end]
        return !(start > 0 && s[start - 1].value == 0x1F3F4 && s[end].value == 0xE007F && (1...6).contains(letters.count)
                 && letters.allSatisfy { (0xE0030...0xE0039).contains($0.value) || (0xE0061...0xE007A).contains($0.value) })
    }
}

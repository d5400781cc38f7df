import Terminal
import TestSupport
import Testing

@Suite struct TerminalTextTests {
    @Test(arguments: [
        ("plain text ✓ 😀", "plain text ✓ 😀"),
        ("\u{1B}[31mred\u{1B}[0m", "red"),
        ("\u{1B}[2J\u{1B}[Hclear", "clear"),
        ("\u{1B}]0;pwned title\u{07}x", "x"),
        ("\u{1B}]8;;http://evil\u{1B}\\link\u{1B}]8;;\u{1B}\\", "link"),
        ("\u{1B}P+q544e\u{1B}\\ok", "ok"),
        ("a\u{08}\u{08}b\rc\u{7F}", "abc"),
        ("\u{9B}31mx", "x"),
        ("tab\tand\nnewline", "tab\tand\nnewline"),
        ("\u{1B}7\u{1B}8saved", "saved"),
        ("trailing escape\u{1B}", "trailing escape"),
    ])
    func removesControlSequences(input: String, expected: String) {
        #expect(TerminalText.sanitize(input) == expected)
    }

    @Test func invalidUTF8IsShownAsReplacementCharacters() {
        let text = String(decoding: [0x61, 0xFF, 0xC3, 0x28, 0x62], as: UTF8.self)
        #expect(TerminalText.sanitize(text) == "a\u{FFFD}\u{FFFD}(b")
    }

    @Test func randomInputNeverLeavesAnEscape() {
        var rng = SeededRandom(seed: 1)
        for _ in 0..<3000 {
            let scalars = (0..<Int.random(in: 0..<30, using: &rng)).compactMap { _ in
                Unicode.Scalar(UInt32.random(in: 0..<0xB0, using: &rng))
            }
            let clean = TerminalText.sanitize(String(String.UnicodeScalarView(scalars)))
            #expect(!clean.unicodeScalars.contains { $0.value == 0x1B || (0x80..<0xA0).contains($0.value) || ($0.value < 0x20 && $0 != "\t" && $0 != "\n") })
        }
    }
}

/// "Zalgo" text: marks stacked on one character draw over the lines
/// around it. Each character keeps at most `maxCombiningMarks`.
@Suite struct CombiningMarkTests {
    @Test func marksBeyondTheCapAreDropped() {
        let zalgo = "Z" + String(repeating: "\u{0301}\u{0316}", count: 200) + "a" + String(repeating: "\u{0489}", count: 50)
        let shown = TerminalText.sanitize(zalgo)
        #expect(shown == "Z\u{0301}\u{0316}\u{0301}\u{0316}a\u{0489}\u{0489}\u{0489}\u{0489}")
        #expect(TerminalText.maxCombiningMarks == 4)
    }

    @Test func joinersDoNotStartAFreshAllowance() {
        let sneaky = "a" + String(repeating: "\u{200D}\u{0301}", count: 20)
        #expect(TerminalText.sanitize(sneaky).unicodeScalars.filter { $0.value == 0x0301 }.count == 4)
    }

    @Test(arguments: [
        "Tiếng Việt",                            // decomposed below: two marks on one letter
        "Tie\u{0302}\u{0301}ng Vie\u{0323}\u{0302}t",
        "בְּרֵאשִׁית",                            // pointed Hebrew
        "नमस्ते",                                 // Devanagari
        "བསྒྲུབས",                                // Tibetan stacks
        "1\u{FE0F}\u{20E3} 👩‍👩‍👧‍👦 👍🏽",         // keycap, ZWJ family, skin tone
    ])
    func realTextIsUntouched(text: String) {
        #expect(TerminalText.sanitize(text) == text)
    }
}

import Terminal
import TestSupport
import Testing

/// Long messages shortened to a few screen lines, counted as the terminal
/// wraps them.
@Suite struct MessageFoldTests {
    @Test func shortTextIsLeftWhole() {
        let fold = MessageFold.fold("hello\nthere", columns: 80, firstColumn: 12, indent: 6, maxLines: 6)
        #expect(fold == MessageFold(shown: "hello\nthere", hiddenLines: 0))
        #expect(MessageFold.fold("", columns: 80, firstColumn: 12, indent: 6, maxLines: 6).hiddenLines == 0)
    }

    @Test func aHundredKilobyteLineShowsSixScreenLines() {
        let text = "start" + String(repeating: "x", count: 100_000) + "END"
        let fold = MessageFold.fold(text, columns: 120, firstColumn: 12, indent: 6, maxLines: 6)
        // 108 columns after `HH:MM peer: `, then five full lines of 120.
        #expect(fold.shown.count == 108 + 5 * 120)
        #expect(text.hasPrefix(fold.shown))
        #expect(fold.hiddenLines == 834 - 6)
        #expect(fold.notice == "… 828 more lines — /show to see all")
        #expect(MessageFold(shown: "", hiddenLines: 1).notice == "… 1 more line — /show to see all")
    }

    @Test func manyShortLinesFoldAtTheLineBreak() {
        let text = (1...10).map { "line \($0)" }.joined(separator: "\n")
        let fold = MessageFold.fold(text, columns: 80, firstColumn: 12, indent: 6, maxLines: 6)
        #expect(fold.shown == (1...6).map { "line \($0)" }.joined(separator: "\n"))
        #expect(fold.hiddenLines == 4)
        let six = (1...6).map { "line \($0)" }.joined(separator: "\n")
        #expect(MessageFold.fold(six, columns: 80, firstColumn: 12, indent: 6, maxLines: 6).hiddenLines == 0)
        #expect(MessageFold.fold(six + "\n7", columns: 80, firstColumn: 12, indent: 6, maxLines: 6).hiddenLines == 1)
    }

    @Test func wrappingFollowsTheTerminal() {
        // A full line then a newline takes one line, not two.
        #expect(MessageFold.fold("0123456789\nx", columns: 10, firstColumn: 0, indent: 0, maxLines: 1).hiddenLines == 1)
        // Further lines start at the indent.
        #expect(MessageFold.fold("a\n12345", columns: 10, firstColumn: 2, indent: 6, maxLines: 1).hiddenLines == 2)
        // A wide character that does not fit at the end of a line moves to the next.
        #expect(MessageFold.fold("ab漢漢", columns: 5, firstColumn: 0, indent: 0, maxLines: 1) == MessageFold(shown: "ab漢", hiddenLines: 1))
        let wide = MessageFold.fold(String(repeating: "漢", count: 100), columns: 20, firstColumn: 0, indent: 0, maxLines: 6)
        #expect(wide == MessageFold(shown: String(repeating: "漢", count: 60), hiddenLines: 4))
    }

    @Test(arguments: [("a", 1), ("漢", 2), ("😀", 2), ("e\u{301}", 1), ("❤️", 2), ("👨‍👩‍👧", 2), ("\u{200B}", 0), ("ｗ", 2)])
    func displayWidths(text: String, columns: Int) {
        #expect(DisplayWidth.of(text) == columns)
    }

    @Test func theTextStartsAfterTimeAndSender() {
        #expect(ChatStyle.textColumn(time: "09:05", .peer(name: "Bob")) == "09:05 Bob: ".count)
        #expect(ChatStyle.textColumn(time: "09:05", .own) == "09:05 you: ".count)
        #expect(ChatStyle.continuationColumn(time: "09:05") == 6)
    }

    /// Random text of letters, wide characters, tabs and newlines: the shown
    /// part is a prefix that fits, and what is hidden is exactly the rest.
    @Test func foldsAgreeWithTheirOwnCount() {
        var rng = SeededRandom(seed: 1)
        let alphabet: [Character] = ["a", "b", " ", "\n", "\t", "漢", "😀", "é"]
        for _ in 0..<2000 {
            let text = String((0..<Int.random(in: 0..<300, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            let columns = Int.random(in: 1...40, using: &rng), first = Int.random(in: 0...20, using: &rng)
            let indent = Int.random(in: 0...10, using: &rng), maxLines = Int.random(in: 1...8, using: &rng)
            let total = MessageFold.fold(text, columns: columns, firstColumn: first, indent: indent, maxLines: 1).hiddenLines + 1
            let fold = MessageFold.fold(text, columns: columns, firstColumn: first, indent: indent, maxLines: maxLines)
            #expect(text.hasPrefix(fold.shown))
            #expect(fold.hiddenLines == max(0, total - maxLines), "\(text.debugDescription) \(columns) \(first) \(indent) \(maxLines)")
            #expect(MessageFold.fold(fold.shown, columns: columns, firstColumn: first, indent: indent, maxLines: maxLines).hiddenLines == 0)
            if fold.hiddenLines == 0 { #expect(fold.shown == text) }
        }
    }
}

/// A long message shortened to its first few screen lines, so one message
/// (up to 256 KiB, over 2,000 lines) cannot push the whole conversation off
/// the screen; `/show` prints it in full. Lines are counted as the terminal
/// shows them: wrapped at its width, the first one after the `HH:MM name: `
/// head, later ones after the indent `ChatStyle.line` adds.
public struct MessageFold: Equatable, Sendable {
    /// The start of the text that fits (all of it when nothing is folded).
    public var shown: String
    /// The screen lines left out; 0 when the whole text is shown.
    public var hiddenLines: Int

    public init(shown: String, hiddenLines: Int) {
        self.shown = shown
        self.hiddenLines = hiddenLines
    }

    /// - Parameters:
    ///   - columns: the terminal's width.
    ///   - firstColumn: where the text starts on its first line (the head's width).
    ///   - indent: where each further line of the text starts.
    ///   - maxLines: the most screen lines shown.
    public static func fold(_ text: String, columns: Int, firstColumn: Int, indent: Int, maxLines: Int) -> MessageFold {
        let columns = max(1, columns)
        let maxLines = max(1, maxLines)
        let indent = indent < columns ? indent : 0
        var lines = 1
        var column = min(firstColumn, columns)
        var cut: String.Index?
        for index in text.indices {
            let character = text[index]
            if character == "\n" {
                if lines == maxLines && cut == nil { cut = index }
                lines += 1
                column = indent
                continue
            }
            if character == "\t" {
                // A tab moves to the next stop but never past the last column: it does not wrap.
                column = max(column, min((column / 8 + 1) * 8, columns - 1))
                continue
            }
            let width = DisplayWidth.of(character)
            if column + width > columns && column > 0 {
                if lines == maxLines && cut == nil { cut = index }
                lines += 1
                column = 0
            }
            column += width
        }
        guard let cut, lines > maxLines else { return MessageFold(shown: text, hiddenLines: 0) }
        return MessageFold(shown: String(text[..<cut]), hiddenLines: lines - maxLines)
    }

    /// `… 828 more lines — /show to see all`.
    public var notice: String {
        "… \(hiddenLines) more line\(hiddenLines == 1 ? "" : "s") — /show to see all"
    }
}

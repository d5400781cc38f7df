import CQRencode
import Glibc

/// A QR code (ISO/IEC 18004) of a short text, encoded by libqrencode, drawn
/// for a terminal with half blocks: one character cell holds two modules,
/// one above the other, so the code stays square in a terminal's tall cells.
public struct QRCode: Sendable, Equatable {
    /// Modules per side, without the quiet zone.
    public let size: Int
    /// Row by row, `true` for a dark module.
    public let modules: [Bool]

    /// The light border every reader needs (4 modules in the standard).
    public static let quietZone = 4

    /// The code of `text` (byte mode, error correction M), or nil when the
    /// text holds a NUL or is too long for any version.
    public init?(_ text: String) {
        guard !text.utf8.contains(0), let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else { return nil }
        defer { QRcode_free(code) }
        size = Int(code.pointee.width)
        // Bit 0 of each byte is the module's colour; the others are libqrencode's bookkeeping.
        modules = (0..<size * size).map { code.pointee.data[$0] & 1 == 1 }
    }

    public func isDark(row: Int, column: Int) -> Bool {
        guard (0..<size).contains(row), (0..<size).contains(column) else { return false }   // the quiet zone
        return modules[row * size + column]
    }

    /// Columns the drawing takes, quiet zone included.
    public var columns: Int { size + 2 * Self.quietZone }

    /// The code as terminal lines: light modules are drawn (`█`, `▀`, `▄`)
    /// and dark ones left blank, so it reads right on the usual light-on-dark
    /// terminal. With `colors`, each line also sets white on black itself
    /// (SGR 97;40), so it reads right on any theme.
    public func terminalLines(colors: Bool) -> [String] {
        let first = -Self.quietZone, last = size + Self.quietZone
        return stride(from: first, to: last, by: 2).map { row in
            let cells = (first..<last).map { column -> Character in
                let top = !isDark(row: row, column: column)
                let bottom = row + 1 < last && !isDark(row: row + 1, column: column)
                switch (top, bottom) {
                case (true, true): return "█"
                case (true, false): return "▀"
                case (false, true): return "▄"
                case (false, false): return " "
                }
            }
            return colors ? "\u{1B}[97;40m" + String(cells) + "\u{1B}[0m" : String(cells)
        }
    }
}

import Testing
@testable import Terminal

@Test func aQRCodeHasItsFinderPatternsAndTheRightSize() throws {
    let qr = try #require(QRCode("https://chat.example:8443/j/123456"))
    #expect(qr.size == 29)   // 34 bytes at level M: version 3
    // The three finder patterns: a dark 7×7 ring around a dark 3×3 centre.
    for (top, left) in [(0, 0), (0, qr.size - 7), (qr.size - 7, 0)] {
        for r in 0..<7 { for c in 0..<7 {
            let ring = r == 0 || r == 6 || c == 0 || c == 6, centre = (2...4).contains(r) && (2...4).contains(c)
            #expect(qr.isDark(row: top + r, column: left + c) == (ring || centre), "finder at \(top),\(left): \(r),\(c)")
        } }
    }
    #expect(!qr.isDark(row: -1, column: 0) && !qr.isDark(row: 0, column: qr.size), "the quiet zone is light")
}

@Test func halfBlocksDrawTwoModuleRowsPerLine() throws {
    let qr = try #require(QRCode("x"))
    #expect(qr.size == 21)
    let lines = qr.terminalLines(colors: false)
    #expect(lines.count == (qr.size + 2 * QRCode.quietZone + 1) / 2)
    #expect(lines.allSatisfy { $0.count == qr.columns })
    #expect(lines[0] == String(repeating: "█", count: qr.columns), "quiet zone: light, drawn")
    // Line 2 holds module rows 0 and 1 of the symbol: the finder's left edge
    // (dark, dark), then its top edge (dark) over its light inside.
    #expect(Array(lines[2])[QRCode.quietZone] == " ")
    #expect(Array(lines[2])[QRCode.quietZone + 1] == "▄")
    let colored = qr.terminalLines(colors: true)
    #expect(colored.allSatisfy { $0.hasPrefix("\u{1B}[97;40m") && $0.hasSuffix("\u{1B}[0m") })
}

@Test func noQRCodeForTextItCannotHold() {
    #expect(QRCode(String(repeating: "a", count: 5000)) == nil)
    #expect(QRCode("a\u{0}b") == nil)
}

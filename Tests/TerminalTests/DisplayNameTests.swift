import ChatClient
import Terminal
import Testing

/// A peer's name is peer text: cleaned and bounded before it is shown.
@Suite struct DisplayNameTests {
    @Test func namesAreCleanedAndBounded() {
        #expect(DisplayName.clean("  Bob\u{1B}[31m\n Smith\u{202E} ") == "Bob Smith")
        #expect(DisplayName.clean(String(repeating: "n", count: 500)) == String(repeating: "n", count: DisplayName.maxCharacters))
        #expect(DisplayName.clean("\u{1B}]0;title\u{07}") == nil)
        #expect(DisplayName.clean("   ") == nil)
        #expect(DisplayName.clean("\u{1B}[2J") == nil)
        #expect(DisplayName.clean("Zoë 😀") == "Zoë 😀")
    }

    @Test func aNameFromTheCtlChannelIsCleanedOnlyWhenShown() throws {
        let message = try #require(ControlMessage(text: #"{"type":"name","name":"\u001b[2J"}"#))
        guard case .name(let raw) = message else { Issue.record("\(message)"); return }
        #expect(DisplayName.clean(raw) == nil)
    }
}

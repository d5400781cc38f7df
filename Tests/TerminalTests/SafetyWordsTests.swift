import Terminal
import Testing

/// New safety words after a peer reconnects with a new key are announced,
/// and an earlier verification does not carry over to them.
@Suite struct SafetyWordsTests {
    @Test func theFirstWordsComeWithAHintAndTheSameWordsAgainWithNothing() throws {
        var words = SafetyWords()
        let none = words.markVerified()
        #expect(none == nil, "nothing to verify before a connection")
        let hint = words.connected(sas: "apple bison cobra delta eagle")
        let first = try #require(hint)
        #expect(first.kind == .notice)
        #expect(first.text.contains("/verify"))
        let marked = words.markVerified()
        #expect(marked == "apple bison cobra delta eagle")
        let same = words.connected(sas: "apple bison cobra delta eagle")
        #expect(same == nil, "same key: nothing new to say")
        #expect(words.verified, "and the verification stands")
    }

    @Test func changedWordsWarnAndResetVerification() throws {
        var words = SafetyWords()
        _ = words.connected(sas: "apple bison cobra delta eagle")
        _ = words.markVerified()
        let warning = words.connected(sas: "fig grape hazel iris jade")
        let changed = try #require(warning)
        #expect(changed.kind == .error)
        #expect(changed.text == "The safety words changed (your peer reconnected with a new key): they are now fig grape hazel iris jade. "
                + "Compare them again; /verify ok when they match. Your earlier verification was reset.")
        #expect(!words.verified)
        #expect(words.current == "fig grape hazel iris jade")

        let next = words.connected(sas: "kiwi lemon mango nut olive")
        let again = try #require(next)
        #expect(again.text.hasSuffix("/verify ok when they match."), "not verified before: nothing to reset")
        #expect(again.text.contains("they are now kiwi lemon mango nut olive."))
    }
}

import Testing
import Terminal

/// The link `create` prints: the locator in the path (what the server may
/// see), the secret words in the fragment (what browsers never send).
@Test func theInviteLinkCarriesTheSecretWordsInItsFragment() {
    let printer = EventPrinter(jsonMode: true)
    printer.inviteBase = "https://chat.example:8443/"
    #expect(printer.inviteLink("123456-brave-calm") == "https://chat.example:8443/j/123456#brave-calm")
    #expect(printer.inviteLink("123456") == "https://chat.example:8443/j/123456")
    printer.inviteBase = nil
    #expect(printer.inviteLink("123456-brave-calm") == nil)
}

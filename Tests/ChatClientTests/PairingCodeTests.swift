import ChatClient
import PAKE
import Testing

/// One way to print a code, many ways to read one (issue 29).
@Suite struct PairingCodeTests {
    let brave = try! #require(CodeSecret(text: "brave-calm"))

    @Test(arguments: [
        "123456-brave-calm", "123456-BRAVE-CALM", "123 456 brave calm", "123-456--brave--calm",
        "  123456 Brave-Calm\n", "123456bravecalm", "123456-bravecalm", "123456brave calm",
    ])
    func everyWayOfTypingTheCodeReadsTheSame(_ typed: String) throws {
        let code = try #require(PairingCode(userInput: typed))
        #expect(code.locator == "123456" && code.secret == brave && code.linkServer == nil)
    }

    @Test func theInviteLinkCarriesTheServerAndTheSecretInItsFragment() throws {
        let code = try #require(PairingCode(userInput: "https://chat.example.org:8443/j/123456#brave-calm"))
        #expect(code.locator == "123456" && code.secret == brave)
        #expect(code.linkServer == "https://chat.example.org:8443")
        let escaped = try #require(PairingCode(userInput: "http://10.0.0.1/j/123456#brave%20calm"))
        #expect(escaped.secret == brave && escaped.linkServer == "http://10.0.0.1")
        let digitsOnly = try #require(PairingCode(userInput: "https://chat.example.org/j/123456"))
        #expect(digitsOnly.secret == nil && digitsOnly.locator == "123456")
    }

    @Test func printedCodesReadBackUnchanged() throws {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let secret = CodeSecret.random(using: &rng)
            let printed = "042917-\(secret)"
            let code = try #require(PairingCode(userInput: printed))
            #expect(code.locator == "042917" && code.secret == secret)
        }
    }

    @Test func eachWrongPartIsNamed() {
        #expect(PairingCode.parse("12345-brave-calm").failure == .digits("12345-"))
        #expect(PairingCode.parse("123456-brave-clam").failure == .unknownWord("clam", suggestion: "calm"))
        #expect(PairingCode.parse("123456-brave-zzzzzz").failure == .unknownWord("zzzzzz", suggestion: nil))
        #expect(PairingCode.parse("123456-brave").failure == .wordCount(1))
        #expect(PairingCode.parse("123456-brave-calm-bold").failure == .wordCount(3))
        #expect(PairingCode.parse("https://x/j/12#brave-calm").failure == .digits("12-"))
        #expect(ClientError.invalidCode("123456-brave-clam").message
                == "'clam' is not one of the code's words (did you mean 'calm'?): check the code your peer gave you.")
    }
}

extension Result {
    var failure: Failure? { if case .failure(let f) = self { f } else { nil } }
}

import PAKE
import Signaling

/// A code as a person types it: the 6-digit locator the server knows,
/// then optionally the secret the server never sees (`123456-brave-calm`).
/// "123456", "123 456" and "123-456" stay plain 6-digit codes.
public struct PairingCode: Equatable, Sendable {
    public let locator: String
    public let secret: CodeSecret?

    public init?(userInput: String) {
        let text = userInput.trimmingCharacters(in: " \t")
        if let code = JoinCode(userInput: text) {
            locator = code.rawValue
            secret = nil
            return
        }
        // The digits (maybe with a separator after the third), then words.
        guard let firstLetter = text.firstIndex(where: { $0.isLetter }),
              let code = JoinCode(userInput: String(text[..<firstLetter])),
              let secret = CodeSecret(text: String(text[firstLetter...])) else { return nil }
        locator = code.rawValue
        self.secret = secret
    }

    /// The word of a well-shaped code that is not in the code word list, if any.
    public static func unknownWord(in userInput: String) -> String? {
        guard let firstLetter = userInput.firstIndex(where: { $0.isLetter }),
              JoinCode(userInput: String(userInput[..<firstLetter])) != nil else { return nil }
        return CodeSecret.unknownWord(in: String(userInput[firstLetter...]))
    }
}


import ChatClient
import TestSupport
import Testing

@Suite struct ControlMessageTests {
    @Test(arguments: [ControlMessage.name("Alice"), .name("Zoë 😀"), .verified(sas: "cube atlas chess zebra tango"), .verified(sas: nil)])
    func roundTrips(message: ControlMessage) {
        #expect(ControlMessage(text: message.text) == message)
    }

    @Test(arguments: [
        "", "null", "[]", "\"name\"", "{}", #"{"type":1}"#, #"{"type":"typing"}"#, #"{"type":"name"}"#,
        #"{"type":"name","name":7}"#,
        #"{"type":"verified","sas":5}"#, #"{"type":"NAME","name":"x"}"#, #"{"type":"name","name":"x""#,
    ])
    func ignoresWhatItDoesNotUnderstand(text: String) {
        #expect(ControlMessage(text: text) == nil)
    }

    @Test func namesArriveAsSentForTheDisplayToClean() {
        let raw = "  Bob\u{1B}[31m\n Smith\u{202E} "
        #expect(ControlMessage(text: ControlMessage.name(raw).text) == .name(raw))
    }

    @Test func extraFieldsAndUnknownTypesDoNotStopLaterMessages() {
        #expect(ControlMessage(text: #"{"type":"name","name":"A","future":{"x":[1,2]}}"#) == .name("A"))
        #expect(ControlMessage(text: #"{"type":"verified","sas":null}"#) == .verified(sas: nil))
    }

    @Test func oversizedMessagesAreRefusedUnread() {
        let padding = String(repeating: " ", count: ControlMessage.maxBytes)
        #expect(ControlMessage(text: #"{"type":"name","name":"A"}"# + padding) == nil)
    }

    @Test func randomAndTruncatedInputNeverCrashes() {
        var rng = SeededRandom(seed: 77)
        let valid = [ControlMessage.name("Alice").text, ControlMessage.verified(sas: "a b c d e").text]
        for text in valid {
            for cut in 0...text.utf8.count {
                let prefix = String(decoding: Array(text.utf8).prefix(cut), as: UTF8.self)
                if let parsed = ControlMessage(text: prefix) { #expect(prefix == text, "only the whole message parses: \(parsed)") }
            }
        }
        let alphabet = Array(#"{}[]":,\ typenamverifdsa0123456789tuxl"#.utf8) + [0x00, 0x1B, 0xC3, 0xFF]
        for _ in 0..<5000 {
            let bytes = (0..<Int.random(in: 0..<60, using: &rng)).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] }
            switch ControlMessage(text: String(decoding: bytes, as: UTF8.self)) {
            case .name(let name)?: #expect(name.utf8.count <= ControlMessage.maxBytes)
            default: break
            }
        }
    }
}

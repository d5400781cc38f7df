import TestSupport
import Testing
import Wire

@Suite struct JSONTests {
    @Test func parsesEveryKindOfValue() throws {
        let json = try JSON.parse(#" {"a": [1, -2.5e3, true, false, null], "b": {"c": "d\n\u00e9\ud83d\ude00"}} "#)
        #expect(json["a"] == [1, .number(-2500), true, false, nil])
        #expect(json["b"]?["c"]?.stringValue == "d\né😀")
    }

    @Test func serializesCompactlyInInsertionOrder() {
        let json: JSON = ["type": "room_joined", "userCount": 1, "ready": false, "roomId": nil, "text": "a\"b\\c\n\u{1}"]
        #expect(json.serialized == #"{"type":"room_joined","userCount":1,"ready":false,"roomId":null,"text":"a\"b\\c\n\u0001"}"#)
    }

    @Test func roundTripsThroughText() throws {
        let json: JSON = ["x": [1.5, "ü", ["y": nil]], "big": 1e300, "neg": -0.25]
        #expect(try JSON.parse(json.serialized) == json)
    }

    @Test func lastDuplicateKeyWinsAsInJavaScript() throws {
        #expect(try JSON.parse(#"{"a":1,"a":2}"#)["a"]?.intValue == 2)
    }

    @Test func integersAreDistinguishedFromFractions() throws {
        #expect(try JSON.parse("300").intValue == 300)
        #expect(try JSON.parse("300.5").intValue == nil)
        #expect(try JSON.parse("\"300\"").intValue == nil)
    }

    @Test(arguments: ["", " ", "{", "[1,]", "{\"a\":}", "01", "1.", ".5", "-", "tru", "nul", "\"abc", "\"\\x\"", "\"\u{1}\"",
                      "{\"a\" 1}", "[1 2]", "1 2", "\"\\ud800\\u12\"", "+1", "NaN", "Infinity"])
    func rejectsInvalidText(text: String) {
        #expect(throws: JSONError.self) { try JSON.parse(text) }
    }

    /// Found by the `json` fuzz target (Tests/FuzzCorpora/json/finding-number-overflow):
    /// `1e653` parsed as infinity, which serializes as `null`.
    @Test(arguments: ["[1, 2.5, -0, 1e653]", "1e309", "-1e309", "123456789e400"])
    func numbersBeyondDoubleRangeAreRefused(text: String) {
        #expect(throws: JSONError.self) { try JSON.parse(text) }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONError.invalidUTF8) { try JSON.parse([0x22, 0xFF, 0x22]) }
    }

    @Test func loneSurrogatesBecomeReplacementCharacters() throws {
        #expect(try JSON.parse(#""\ud800x""#).stringValue == "\u{FFFD}x")
    }

    @Test func nestingIsBounded() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONError.tooDeep) { try JSON.parse(deep) }
    }

    @Test func randomAndTruncatedInputNeverCrashes() {
        var rng = SeededRandom(seed: 42)
        let samples = [#"{"type":"join_room","roomId":"abc"}"#, #"[1,2,{"a":[true,null,"\u00e9"]}]"#, #"{"x":-1.5e-3}"#]
        for sample in samples {
            let bytes = Array(sample.utf8)
            for cut in 0...bytes.count { _ = try? JSON.parse(Array(bytes[0..<cut])) }
        }
        let alphabet = Array(#"{}[]":,.-+eE0123456789truefalsn\u "#.utf8) + [0xC3, 0xA9, 0xFF, 0x00]
        for _ in 0..<5000 {
            let length = Int.random(in: 0..<40, using: &rng)
            let bytes = (0..<length).map { _ in alphabet.randomElement(using: &rng) ?? 0 }
            _ = try? JSON.parse(bytes)
        }
        for _ in 0..<2000 {
            var bytes = Array(samples.randomElement(using: &rng)!.utf8)
            let i = Int.random(in: 0..<bytes.count, using: &rng)
            bytes[i] = UInt8.random(in: 0...255, using: &rng)
            _ = try? JSON.parse(bytes)
        }
    }
}

/// `--json` output is read on terminals and by scripts: integers stay
/// integers at any size, and controls a terminal or a reader would act on
/// are escaped.
@Suite struct JSONOutputSafetyTests {
    @Test func integersBeyondTwoToThe53AreWrittenExactly() throws {
        #expect(JSON(UInt64(1) << 63).serialized == "9223372036854775808")
        #expect(JSON(UInt64.max).serialized == "18446744073709551615")
        #expect(JSON(UInt64.max - 1).serialized == "18446744073709551614")
        #expect(JSON(Int.min).serialized == "-9223372036854775808")
        let offer: JSON = ["event": "offer", "size": JSON(UInt64(1) << 63)]
        #expect(offer.serialized == #"{"event":"offer","size":9223372036854775808}"#)
        // An integral Double is an integer too, never "9.2e+18".
        #expect(JSON.number(9_223_372_036_854_775_808).serialized == "9223372036854775808")
        #expect(JSON.number(0.5).serialized == "0.5")
        #expect(JSON(5) == .number(5))
        #expect(JSON(UInt64(1) << 63).intValue == nil)
        #expect(JSON(42).intValue == 42)
    }

    @Test func c1AndBidiControlsAreEscaped() throws {
        let text = "a\u{85}b\u{9B}c\u{202E}d\u{2066}e\u{200F}f\u{2028}g\u{7F}h é😀"
        let out = JSON.string(text).serialized
        #expect(out == #""a\u0085b\u009bc\u202ed\u2066e\u200ff\u2028g\u007fh é😀""#)
        #expect(out.unicodeScalars.allSatisfy { !(0x80...0x9F).contains($0.value) && !(0x202A...0x202E).contains($0.value) })
        #expect(try JSON.parse(out) == .string(text))
    }
}

import TestSupport
import Signaling
import Testing

@Test func joinCodeIsExactlySixASCIIDigits() {
    #expect(JoinCode("012345")?.rawValue == "012345")
    for bad in ["", "12345", "1234567", "12345a", " 12345", "١٢٣٤٥٦", "12 456", "-12345"] {
        #expect(JoinCode(bad) == nil, "\(bad)")
    }
}

@Test func joinCodeFromAPersonAcceptsSpacesAndHyphens() {
    for typed in ["123456", "123 456", "123-456", " 123456 ", "12 34 56", "1-2-3-4-5-6", "123 - 456", "\t123456"] {
        #expect(JoinCode(userInput: typed)?.rawValue == "123456", "\(typed)")
    }
    #expect(JoinCode(userInput: "012 345")?.rawValue == "012345", "leading zeros stay")
    for bad in ["", " ", "-", "12345", "1234567", "123 45", "12a456", "123_456", "123.456", "١٢٣٤٥٦", "+123456"] {
        #expect(JoinCode(userInput: bad) == nil, "\(bad)")
    }
}

@Test func randomJoinCodesAreAlwaysValidAndZeroPadded() {
    var rng = SeededRandom(seed: 1)
    for _ in 0..<2000 {
        let code = JoinCode.random(using: &rng)
        #expect(JoinCode(code.rawValue) == code)
    }
}

@Test func roomIDIsFortyEightLowercaseHex() {
    let valid = String(repeating: "ab12", count: 12)
    #expect(RoomID(valid)?.rawValue == valid)
    #expect(RoomID(valid.uppercased()) == nil)
    #expect(RoomID(String(valid.dropLast())) == nil)
    #expect(RoomID(valid + "0") == nil)
    #expect(RoomID(String(repeating: "g", count: 48)) == nil)
    var rng = SeededRandom(seed: 2)
    let a = RoomID.random(using: &rng)
    let b = RoomID.random(using: &rng)
    #expect(RoomID(a.rawValue) == a)
    #expect(a != b)
}

@Test func deviceIDIsEightToOneHundredTwentyEightSafeCharacters() {
    #expect(DeviceID("abcdEFGH") != nil)
    #expect(DeviceID("a_b-c_d-09") != nil)
    #expect(DeviceID(String(repeating: "x", count: 128)) != nil)
    #expect(DeviceID(String(repeating: "x", count: 129)) == nil)
    #expect(DeviceID("abcdefg") == nil)
    #expect(DeviceID("abcd efgh") == nil)
    #expect(DeviceID("abcd/efgh") == nil)
    #expect(DeviceID("abcdéfgh") == nil)
    var rng = SeededRandom(seed: 3)
    let id = DeviceID.random(using: &rng)
    #expect(DeviceID(id.rawValue) == id)
}

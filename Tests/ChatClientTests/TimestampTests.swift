import ChatClient
import Testing
import TestSupport

/// The server's `exp` (JavaScript's `toISOString`) read into UNIX seconds and back.
@Suite struct TimestampTests {
    @Test(arguments: [
        ("1970-01-01T00:00:00.000Z", 0),
        ("2025-01-31T12:34:56.789Z", 1_738_326_896),
        ("2025-01-31T12:34:56Z", 1_738_326_896),
        ("2000-02-29T23:59:59.5Z", 951_868_799),
    ])
    func parsesTheServersExpiry(text: String, seconds: Int) {
        #expect(Timestamp.parseISO8601(text) == seconds)
    }

    @Test(arguments: [
        "", "Z", "2025-01-31", "2025-01-31T12:34:56", "2025-01-31T12:34:56+01:00", "2025-01-31 12:34:56Z",
        "2025-13-01T00:00:00Z", "2025-01-32T00:00:00Z", "2025-01-31T24:00:00Z", "2025-01-31T12:60:00Z",
        "2025-01-31T12:34:56.Z", "2025-01-31T12:34:56.12aZ", "-025-01-31T12:34:56Z", "2025-01-31T12:34:5６Z",
    ])
    func rejectsAnythingElse(text: String) {
        #expect(Timestamp.parseISO8601(text) == nil)
    }

    @Test func formatsRoundTrip() {
        for seconds in [0, 1_738_326_896, 4_102_444_800] {
            #expect(Timestamp.parseISO8601(Timestamp.iso8601(seconds)) == seconds)
        }
        #expect(Timestamp.iso8601(1_738_326_896) == "2025-01-31T12:34:56.000Z")
    }

    @Test func randomAndTruncatedInputNeverCrashes() {
        var rng = SeededRandom(seed: 0x7153)
        let valid = Array("2025-01-31T12:34:56.789Z".utf8)
        for length in 0...valid.count {
            _ = Timestamp.parseISO8601(String(decoding: valid.prefix(length), as: UTF8.self))
        }
        let alphabet = Array("0123456789-T:.Z ".utf8) + [0xC3, 0xA9, 0xFF]
        for _ in 0..<5_000 {
            var bytes = valid
            for _ in 0..<Int(rng.next() % 4) {
                bytes[Int(rng.next() % UInt64(bytes.count))] = alphabet[Int(rng.next() % UInt64(alphabet.count))]
            }
            let text = String(decoding: bytes.prefix(Int(rng.next() % UInt64(bytes.count + 1))), as: UTF8.self)
            if Timestamp.parseISO8601(text) != nil { #expect(text.hasSuffix("Z") && text.utf8.count >= 20 && text.utf8.count != 21) }
        }
    }
}

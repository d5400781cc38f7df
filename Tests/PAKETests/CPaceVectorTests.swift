import PAKE
import Testing
import TestSupport
import Wire

/// draft-irtf-cfrg-cpace, appendix "Test vector for CPace using group
/// ristretto255 and hash SHA-512" (`CPaceVectors`, which the browsers run
/// too), and the string-function vectors.
struct CPaceVectorTests {
    static func hex(_ text: String) -> [UInt8] { Hex.decode(text.filter { !$0.isWhitespace }) ?? [] }

    static let prs = Array(CPaceVectors.prs.utf8)
    static let ci = hex(CPaceVectors.ci)
    static let sid = hex(CPaceVectors.sid)
    static let ya = hex(CPaceVectors.ya)
    static let yb = hex(CPaceVectors.yb)
    static let sharedYa = hex(CPaceVectors.sharedYa)
    static let sharedYb = hex(CPaceVectors.sharedYb)
    static let k = hex(CPaceVectors.k)
    static let ada = Array(CPaceVectors.ada.utf8)
    static let adb = Array(CPaceVectors.adb.utf8)

    @Test func prependLengthMatchesTheDraft() {
        #expect(LengthValue.prependLength([]) == [0])
        #expect(LengthValue.prependLength(Array("1234".utf8)) == Self.hex("0431323334"))
        #expect(LengthValue.prependLength((0..<127).map(UInt8.init)) == [0x7F] + (0..<127).map(UInt8.init))
        #expect(LengthValue.prependLength((0..<128).map(UInt8.init)) == [0x80, 0x01] + (0..<128).map(UInt8.init))
        #expect(LengthValue.concatenate(Array("1234".utf8), Array("5".utf8), [], Array("678".utf8)) == Self.hex("043132333401350003363738"))
    }

    @Test func orderedConcatenationMatchesTheDraft() {
        #expect(!LengthValue.isLarger([0], than: [0, 0]))
        #expect(LengthValue.isLarger([1], than: [0, 0]))
        #expect(LengthValue.isLarger([0, 0], than: [0]))
        #expect(!LengthValue.isLarger([0, 1], than: [1]))
        #expect(LengthValue.orderedConcatenation(Array("ABCD".utf8), Array("BCD".utf8)) == Self.hex("6f6342434441424344"))
        #expect(LengthValue.orderedConcatenation(Array("BCD".utf8), Array("ABCDE".utf8)) == Self.hex("6f634243444142434445"))
        #expect(CPace.transcriptIR(ya: Array("123".utf8), ada: Array("PartyA".utf8), yb: Array("234".utf8), adb: Array("PartyB".utf8))
            == Self.hex("03313233065061727479410332333406506172747942"))
        #expect(CPace.transcriptOC(ya: Array("123".utf8), ada: Array("PartyA".utf8), yb: Array("234".utf8), adb: Array("PartyB".utf8))
            == Self.hex("6f6303323334065061727479420331323306506172747941"))
    }

    @Test func generatorMatchesTheDraft() {
        let string = CPace.generatorString(prs: Self.prs, ci: Self.ci, sid: Self.sid)
        #expect(string.count == CPaceVectors.generatorStringLength)
        #expect(CPace.sha512(string) == Self.hex(CPaceVectors.generatorStringHash))
        #expect(CPace.generator(prs: Self.prs, ci: Self.ci, sid: Self.sid) == Self.hex(CPaceVectors.generator))
    }

    @Test func sharesSecretPointAndISKMatchTheDraft() throws {
        let g = CPace.generator(prs: Self.prs, ci: Self.ci, sid: Self.sid)
        #expect(CPace.scalarMultiply(Self.ya, g) == Self.sharedYa)
        #expect(CPace.scalarMultiply(Self.yb, g) == Self.sharedYb)
        #expect(CPace.scalarMultiply(Self.ya, Self.sharedYb) == Self.k)
        #expect(CPace.scalarMultiply(Self.yb, Self.sharedYa) == Self.k)
        let isk = CPace.intermediateSessionKey(sid: Self.sid, k: Self.k, ya: Self.sharedYa, ada: Self.ada, yb: Self.sharedYb, adb: Self.adb)
        #expect(isk == Self.hex(CPaceVectors.iskIR))
        // The parallel (ordered-concatenation) ISK, from the same inputs.
        let prefix = LengthValue.concatenate(CPace.dsi + Array("_ISK".utf8), Self.sid, Self.k)
        #expect(CPace.sha512(prefix + CPace.transcriptOC(ya: Self.sharedYa, ada: Self.ada, yb: Self.sharedYb, adb: Self.adb))
                == Self.hex(CPaceVectors.iskOC))
    }

    @Test func scalarMultiplicationVectors() {
        let s = Self.hex(CPaceVectors.multiplyScalar)
        #expect(CPace.scalarMultiply(s, Self.hex(CPaceVectors.multiplyPoint)) == Self.hex(CPaceVectors.multiplyProduct))
        // Invalid encodings and the neutral element give G.I (nil): abort.
        #expect(CPace.scalarMultiply(s, Self.hex(CPaceVectors.invalidPoint)) == nil)
        #expect(CPace.scalarMultiply(s, Self.hex(CPaceVectors.neutralPoint)) == nil)
        #expect(CPace.scalarMultiply(s, [UInt8](repeating: 0, count: 31)) == nil)
    }
}

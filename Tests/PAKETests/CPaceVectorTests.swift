import PAKE
import Testing
import Wire

/// draft-irtf-cfrg-cpace, appendix "Test vector for CPace using group
/// ristretto255 and hash SHA-512", and the string-function vectors.
struct CPaceVectorTests {
    static func hex(_ text: String) -> [UInt8] { Hex.decode(text.filter { !$0.isWhitespace }) ?? [] }

    static let prs = Array("Password".utf8)
    static let ci = hex("0b415f696e69746961746f720b425f726573706f6e646572")
    static let sid = hex("7e4b4791d6a8ef019b936c79fb7f2c57")
    static let ya = hex("da3d23700a9e5699258aef94dc060dfda5ebb61f02a5ea77fad53f4ff0976d08")
    static let yb = hex("d2316b454718c35362d83d69df6320f38578ed5984651435e2949762d900b80d")
    static let sharedYa = hex("d6bac480f2c386c394efc7c47adb9925dcd2630b64f240c50f8d0eec482b9157")
    static let sharedYb = hex("3ea7e0b19560d7c0b0f5734f63b955286dfa8232b5ebe63324e2d9e7433f7258")
    static let k = hex("80b69a8a76457ab6a4d7f887a4bf6b55a2f80ac19c333f917a05fc9887c8b40f")
    static let ada = Array("ADa".utf8)
    static let adb = Array("ADb".utf8)

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
        #expect(string.count == 170)
        #expect(CPace.sha512(string) == Self.hex("""
            da6d3ddc8802fca9058755ffd3ebde08a9c2c74945901a258482a288b6663af06bf645c93cd1c51512307199c80e84908916d983b34af77205f90851a657ee27
            """))
        #expect(CPace.generator(prs: Self.prs, ci: Self.ci, sid: Self.sid) == Self.hex("222b6b195fe84b1652badb6f6a3ae3d24341e7306967f0b8115b40d5698c7e56"))
    }

    @Test func sharesSecretPointAndISKMatchTheDraft() throws {
        let g = CPace.generator(prs: Self.prs, ci: Self.ci, sid: Self.sid)
        #expect(CPace.scalarMultiply(Self.ya, g) == Self.sharedYa)
        #expect(CPace.scalarMultiply(Self.yb, g) == Self.sharedYb)
        #expect(CPace.scalarMultiply(Self.ya, Self.sharedYb) == Self.k)
        #expect(CPace.scalarMultiply(Self.yb, Self.sharedYa) == Self.k)
        let isk = CPace.intermediateSessionKey(sid: Self.sid, k: Self.k, ya: Self.sharedYa, ada: Self.ada, yb: Self.sharedYb, adb: Self.adb)
        #expect(isk == Self.hex("""
            b69effbf61b51d56401c0f65601abe428de8206feaaf0e32198896dcae7b35cd2b38950a39dfd5d4a79164614c2984f7daa460b588c1e80c3fa2068af7900447
            """))
        // The parallel (ordered-concatenation) ISK, from the same inputs.
        let prefix = LengthValue.concatenate(CPace.dsi + Array("_ISK".utf8), Self.sid, Self.k)
        #expect(CPace.sha512(prefix + CPace.transcriptOC(ya: Self.sharedYa, ada: Self.ada, yb: Self.sharedYb, adb: Self.adb)) == Self.hex("""
            544199d71f62f8d9a1fee55727e24fe4a45844593c2b6013c4fa3969d0e5debb2244675c0b43397cbb68d342b01fc0f98fc961469a25134de9f0f813c1a57476
            """))
    }

    @Test func scalarMultiplicationVectors() {
        let s = Self.hex("7cd0e075fa7955ba52c02759a6c90dbbfc10e6d40aea8d283e407d88cf538a05")
        let x = Self.hex("2c3c6b8c4f3800e7aef6864025b4ed79bd599117e427c41bd47d93d654b4a51c")
        #expect(CPace.scalarMultiply(s, x) == Self.hex("7c13645fe790a468f62c39beb7388e541d8405d1ade69d1778c5fe3e7f6b600e"))
        // Invalid encodings and the neutral element give G.I (nil): abort.
        #expect(CPace.scalarMultiply(s, Self.hex("2b3c6b8c4f3800e7aef6864025b4ed79bd599117e427c41bd47d93d654b4a51c")) == nil)
        #expect(CPace.scalarMultiply(s, [UInt8](repeating: 0, count: 32)) == nil)
        #expect(CPace.scalarMultiply(s, [UInt8](repeating: 0, count: 31)) == nil)
    }
}

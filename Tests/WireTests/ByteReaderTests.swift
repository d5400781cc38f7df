import Testing
import Wire

@Suite struct ByteReaderTests {
    @Test func readsBigEndianIntegers() {
        var r = ByteReader([0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F])
        #expect(r.readU8() == 0x01)
        #expect(r.readU16() == 0x0203)
        #expect(r.readU32() == 0x0405_0607)
        #expect(r.readU64() == 0x0809_0A0B_0C0D_0E0F)
        #expect(r.isAtEnd)
        #expect(r.readU8() == nil)
    }

    @Test func shortReadsReturnNilWithoutMoving() {
        var r = ByteReader([0xAA, 0xBB, 0xCC])
        #expect(r.readU32() == nil)
        #expect(r.readBytes(4) == nil)
        #expect(r.readBytes(-1) == nil)
        #expect(r.offset == 0)
        #expect(r.readBytes(3) == [0xAA, 0xBB, 0xCC])
    }

    @Test func slicesAreBoundedByTheirRange() {
        var r = ByteReader([1, 2, 3, 4, 5])
        _ = r.readU8()
        var slice = r.readSlice(2)!
        #expect(slice.readU8() == 2)
        #expect(slice.readU8() == 3)
        #expect(slice.readU8() == nil)
        #expect(r.readU8() == 4)
    }

    @Test func writerRoundTrips() {
        var w = ByteWriter()
        w.writeU8(1); w.writeU16(0x0203); w.writeU32(0x0405_0607); w.writeU64(42); w.write("hi")
        w.pad(to: 4)
        w.setU16(0xFFFF, at: 1)
        var r = ByteReader(w.bytes)
        #expect(r.readU8() == 1)
        #expect(r.readU16() == 0xFFFF)
        #expect(r.readU32() == 0x0405_0607)
        #expect(r.readU64() == 42)
        #expect(w.count % 4 == 0)
    }

    @Test func hexRoundTripsAndRejectsJunk() {
        #expect(Hex.encode([0x00, 0xAB, 0xFF]) == "00abff")
        #expect(Hex.decode("00ABff") == [0x00, 0xAB, 0xFF])
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("zz") == nil)
    }
}

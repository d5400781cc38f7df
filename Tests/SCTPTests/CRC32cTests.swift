import TestSupport
import Testing
@testable import SCTP

/// The CPU's CRC32 instruction and the table agree (RFC 3720 B.4 vectors,
/// seeded random buffers at every alignment and length).
@Suite struct CRC32cTests {
    static let vectors: [([UInt8], UInt32)] = [
        ([UInt8](repeating: 0, count: 32), 0x8A91_36AA),
        ([UInt8](repeating: 0xFF, count: 32), 0x62A8_AB43),
        ((0..<32).map { UInt8($0) }, 0x46DD_794E),
        ((0..<32).map { UInt8(31 - $0) }, 0x113F_DB5C),
        (Array("123456789".utf8), 0xE306_9283),
    ]

    @Test func softwareMatchesRFC3720Vectors() {
        for (bytes, expected) in Self.vectors {
            #expect(bytes.withUnsafeBufferPointer { ~CRC32c.softwareUpdate(0xFFFF_FFFF, $0) } == expected)
        }
    }

    @Test(.enabled(if: CRC32c.isHardware, "this CPU has no CRC32 instruction"))
    func hardwareMatchesRFC3720Vectors() {
        for (bytes, expected) in Self.vectors {
            #expect(bytes.withUnsafeBufferPointer { ~CRC32c.update(0xFFFF_FFFF, $0) } == expected)
        }
    }

    @Test(.enabled(if: CRC32c.isHardware, "this CPU has no CRC32 instruction"))
    func hardwareAgreesWithSoftwareOnRandomBuffers() {
        var random = SeededRandom(seed: 0xC5C3_2C)
        for _ in 0..<2000 {
            let count = Int(random.next() % 4100)
            let offset = Int(random.next() % 8)
            let bytes = (0..<(count + offset)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let start = UInt32(truncatingIfNeeded: random.next())
            bytes.withUnsafeBufferPointer { all in
                let buf = UnsafeBufferPointer(rebasing: all[offset...])
                #expect(CRC32c.update(start, buf) == CRC32c.softwareUpdate(start, buf), "length \(count) offset \(offset)")
            }
        }
    }

    @Test func packetChecksumTreatsTheChecksumFieldAsZero() {
        var random = SeededRandom(seed: 7)
        let packet = (0..<1500).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        var zeroed = packet
        zeroed.replaceSubrange(8..<12, with: [0, 0, 0, 0])
        #expect(CRC32c.packetChecksum(packet) == CRC32c.checksum(zeroed))
    }
}

import CShims

/// CRC32c (Castagnoli), the SCTP checksum (RFC 9260 Appendix B, RFC 3309).
///
/// The CPU's CRC32 instruction (SSE4.2 on x86-64, the CRC extension on
/// AArch64) when it has one, checked once at run time; otherwise
/// slicing-by-8: eight 256-entry tables let the loop consume eight bytes per
/// step.
public enum CRC32c {
    /// Whether checksums are computed by the CPU's CRC32 instruction.
    public static let isHardware = cshims_crc32c_available() != 0

    /// Reflected Castagnoli polynomial.
    static let polynomial: UInt32 = 0x82F6_3B78

    static let tables: [UInt32] = {
        var t = [UInt32](repeating: 0, count: 8 * 256)
        for i in 0..<256 {
            var c = UInt32(i)
            for _ in 0..<8 { c = (c & 1) != 0 ? (c >> 1) ^ polynomial : c >> 1 }
            t[i] = c
        }
        for i in 0..<256 {
            for k in 1..<8 {
                let prev = t[(k - 1) * 256 + i]
                t[k * 256 + i] = (prev >> 8) ^ t[Int(prev & 0xFF)]
            }
        }
        return t
    }()

    /// The finished checksum of `bytes`.
    public static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        if let done = bytes.withContiguousStorageIfAvailable({ update(0xFFFF_FFFF, $0) }) { return ~done }
        return ~Array(bytes).withUnsafeBufferPointer { update(0xFFFF_FFFF, $0) }
    }

    /// Checksum of an SCTP packet with its checksum field (bytes 8..<12)
    /// taken as zero, without copying the packet.
    static func packetChecksum(_ packet: [UInt8]) -> UInt32 {
        packet.withUnsafeBufferPointer { buf -> UInt32 in
            guard buf.count >= 12 else { return ~update(0xFFFF_FFFF, buf) }
            var crc = update(0xFFFF_FFFF, UnsafeBufferPointer(rebasing: buf[0..<8]))
            crc = zeroWord.withUnsafeBufferPointer { update(crc, $0) }
            crc = update(crc, UnsafeBufferPointer(rebasing: buf[12...]))
            return ~crc
        }
    }

    private static let zeroWord: [UInt8] = [0, 0, 0, 0]

    /// Continues the reflected CRC `crc` over `buf` (no inversions).
    static func update(_ crc: UInt32, _ buf: UnsafeBufferPointer<UInt8>) -> UInt32 {
        guard isHardware, let base = buf.baseAddress else { return softwareUpdate(crc, buf) }
        return cshims_crc32c_update(crc, base, buf.count)
    }

    /// `update` by table, whatever the CPU has.
    static func softwareUpdate(_ start: UInt32, _ buf: UnsafeBufferPointer<UInt8>) -> UInt32 {
        guard let base = buf.baseAddress else { return start }
        var crc = start
        tables.withUnsafeBufferPointer { t in
            var i = 0
            let n = buf.count
            while n - i >= 8 {
                let raw = UnsafeRawPointer(base + i)
                let lo = UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)) ^ crc
                let hi = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
                crc = t[7 * 256 + Int(lo & 0xFF)] ^ t[6 * 256 + Int((lo >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((lo >> 16) & 0xFF)] ^ t[4 * 256 + Int(lo >> 24)]
                    ^ t[3 * 256 + Int(hi & 0xFF)] ^ t[2 * 256 + Int((hi >> 8) & 0xFF)]
                    ^ t[1 * 256 + Int((hi >> 16) & 0xFF)] ^ t[Int(hi >> 24)]
                i += 8
            }
            while i < n {
                crc = (crc >> 8) ^ t[Int((crc ^ UInt32(base[i])) & 0xFF)]
                i += 1
            }
        }
        return crc
    }
}

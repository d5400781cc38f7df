/// CRC32c (Castagnoli), the SCTP checksum (RFC 9260 Appendix B, RFC 3309).
///
/// Slicing-by-8: eight 256-entry tables let the loop consume eight bytes per
/// step, which keeps the checksum well above the data-channel target rate
/// without a C shim.
public enum CRC32c {
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
        let done = bytes.withContiguousStorageIfAvailable { update(0xFFFF_FFFF, $0) }
        if let done { return ~done }
        return ~update(0xFFFF_FFFF, UnsafeBufferPointer(start: nil, count: 0), tail: bytes)
    }

    /// Checksum of an SCTP packet with its checksum field (bytes 8..<12)
    /// taken as zero, without copying the packet.
    static func packetChecksum(_ packet: [UInt8]) -> UInt32 {
        packet.withUnsafeBufferPointer { buf -> UInt32 in
            guard buf.count >= 12 else { return ~update(0xFFFF_FFFF, buf) }
            var crc = update(0xFFFF_FFFF, UnsafeBufferPointer(rebasing: buf[0..<8]))
            crc = update(crc, UnsafeBufferPointer(start: nil, count: 0), tail: zeroWord)
            crc = update(crc, UnsafeBufferPointer(rebasing: buf[12...]))
            return ~crc
        }
    }

    private static let zeroWord: [UInt8] = [0, 0, 0, 0]

    private static func update(_ start: UInt32, _ buf: UnsafeBufferPointer<UInt8>, tail: some Collection<UInt8> = [UInt8]()) -> UInt32 {
        var crc = start
        tables.withUnsafeBufferPointer { t in
            var i = 0
            let n = buf.count
            if let base = buf.baseAddress {
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
            for byte in tail { crc = (crc >> 8) ^ t[Int((crc ^ UInt32(byte)) & 0xFF)] }
        }
        return crc
    }
}

/// The State Cookie of INIT ACK (RFC 9260 §5.1.3): what we need to build the
/// association from a COOKIE ECHO without keeping state for a bare INIT,
/// authenticated with a keyed SipHash-2-4 so a peer cannot forge one.
struct StateCookie: Equatable {
    var timestamp: UInt64  // milliseconds on the association's clock
    var localTag: UInt32
    var peerTag: UInt32
    var peerInitialTSN: UInt32
    var peerReceiverWindow: UInt32
    var peerOutboundStreams: UInt16
    var peerInboundStreams: UInt16
    var peerSupportsForwardTSN: Bool
    var peerSupportsReconfig: Bool
    /// The peer listed PAD (RFC 4820) among its extensions (kept in bit 1 of the reconfig byte).
    var peerSupportsPad = false

    static let bodySize = 30
    static let size = bodySize + 8

    func encode(key: SipHashKey) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(Self.size)
        out.appendU32(UInt32(truncatingIfNeeded: timestamp >> 32))
        out.appendU32(UInt32(truncatingIfNeeded: timestamp))
        out.appendU32(localTag)
        out.appendU32(peerTag)
        out.appendU32(peerInitialTSN)
        out.appendU32(peerReceiverWindow)
        out.appendU16(peerOutboundStreams)
        out.appendU16(peerInboundStreams)
        out.append(peerSupportsForwardTSN ? 1 : 0)
        out.append((peerSupportsReconfig ? 1 : 0) | (peerSupportsPad ? 2 : 0))
        let mac = SipHash.hash(out[...], key: key)
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: mac >> UInt64(shift))) }
        return out
    }

    /// Nil unless the length and MAC are right.
    static func decode(_ bytes: ArraySlice<UInt8>, key: SipHashKey) -> StateCookie? {
        guard bytes.count == size else { return nil }
        let b = Array(bytes)
        var mac: UInt64 = 0
        for i in bodySize..<size { mac = mac << 8 | UInt64(b[i]) }
        guard mac == SipHash.hash(b[0..<bodySize], key: key) else { return nil }
        func u32(_ i: Int) -> UInt32 { UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3]) }
        func u16(_ i: Int) -> UInt16 { UInt16(b[i]) << 8 | UInt16(b[i + 1]) }
        return StateCookie(timestamp: UInt64(u32(0)) << 32 | UInt64(u32(4)), localTag: u32(8), peerTag: u32(12),
                           peerInitialTSN: u32(16), peerReceiverWindow: u32(20), peerOutboundStreams: u16(24),
                           peerInboundStreams: u16(26), peerSupportsForwardTSN: b[28] != 0, peerSupportsReconfig: b[29] & 1 != 0,
                           peerSupportsPad: b[29] & 2 != 0)
    }
}

struct SipHashKey: Equatable {
    var k0: UInt64
    var k1: UInt64
}

/// SipHash-2-4 (Aumasson & Bernstein), a keyed 64-bit MAC for short inputs.
enum SipHash {
    static func hash(_ data: ArraySlice<UInt8>, key: SipHashKey) -> UInt64 {
        var v0: UInt64 = 0x736f_6d65_7073_6575 ^ key.k0
        var v1: UInt64 = 0x646f_7261_6e64_6f6d ^ key.k1
        var v2: UInt64 = 0x6c79_6765_6e65_7261 ^ key.k0
        var v3: UInt64 = 0x7465_6462_7974_6573 ^ key.k1
        func round() {
            v0 = v0 &+ v1; v1 = v1.rotl(13); v1 ^= v0; v0 = v0.rotl(32)
            v2 = v2 &+ v3; v3 = v3.rotl(16); v3 ^= v2
            v0 = v0 &+ v3; v3 = v3.rotl(21); v3 ^= v0
            v2 = v2 &+ v1; v1 = v1.rotl(17); v1 ^= v2; v2 = v2.rotl(32)
        }
        let bytes = Array(data)
        let full = bytes.count / 8 * 8
        var i = 0
        while i < full {
            var m: UInt64 = 0
            for j in 0..<8 { m |= UInt64(bytes[i + j]) << UInt64(8 * j) }
            v3 ^= m; round(); round(); v0 ^= m
            i += 8
        }
        var last = UInt64(truncatingIfNeeded: bytes.count) << 56
        for j in 0..<(bytes.count - full) { last |= UInt64(bytes[full + j]) << UInt64(8 * j) }
        v3 ^= last; round(); round(); v0 ^= last
        v2 ^= 0xFF
        round(); round(); round(); round()
        return v0 ^ v1 ^ v2 ^ v3
    }
}

extension UInt64 {
    @inline(__always) fileprivate func rotl(_ n: UInt64) -> UInt64 { (self << n) | (self >> (64 - n)) }
}

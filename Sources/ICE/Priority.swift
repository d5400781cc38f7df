import STUN

/// Candidate and pair priorities (RFC 8445 §5.1.2, §6.1.2.3) and
/// foundations (§5.1.1.3).
enum ICEPriority {
    /// `2^24 × type preference + 2^8 × local preference + (256 − component)`.
    static func candidate(type: ICECandidateType, localPreference: UInt16, component: UInt16 = 1) -> UInt32 {
        let componentPart = UInt32(256 - min(max(Int(component), 1), 256))
        return type.typePreference << 24 | UInt32(localPreference) << 8 | componentPart
    }

    /// `2^32 × MIN(G,D) + 2 × MAX(G,D) + (G > D ? 1 : 0)` where G is the
    /// controlling agent's candidate priority and D the controlled one's.
    static func pair(controlling g: UInt32, controlled d: UInt32) -> UInt64 {
        UInt64(min(g, d)) << 32 | UInt64(max(g, d)) << 1 | (g > d ? 1 : 0)
    }

    /// Local preference of a base: IPv6 (not link-local) above IPv4 above
    /// link-local IPv6 (RFC 8421 §4 asks to prefer IPv6), then the order the
    /// interfaces were added so every base has a distinct value.
    static func localPreference(for address: STUNAddress, interfaceIndex: Int) -> UInt16 {
        let familyClass: Int
        if address.family == .ipv4 {
            familyClass = 2
        } else if address.isLinkLocal {
            familyClass = 1
        } else {
            familyClass = 3
        }
        let index = min(max(interfaceIndex, 0), 0x3FFF)
        return UInt16(familyClass * 0x4000 + (0x3FFF - index))
    }

    /// Equal for candidates of the same type, base IP, STUN/TURN server and
    /// transport, so that frozen pairs unfreeze together. FNV-1a keeps it
    /// stable across runs (Swift's `Hasher` is seeded per process).
    static func foundation(type: ICECandidateType, baseIP: [UInt8], server: STUNAddress? = nil, transport: String = "udp") -> String {
        var hash: UInt32 = 0x811C_9DC5
        func mix(_ bytes: some Sequence<UInt8>) {
            for byte in bytes {
                hash ^= UInt32(byte)
                hash = hash &* 0x0100_0193
            }
            hash ^= 0xFF
            hash = hash &* 0x0100_0193
        }
        mix(type.rawValue.utf8)
        mix(baseIP)
        mix(server.map { $0.ip + [UInt8(truncatingIfNeeded: $0.port >> 8), UInt8(truncatingIfNeeded: $0.port)] } ?? [])
        mix(transport.lowercased().utf8)
        return String(hash)
    }
}

/// A transport address as STUN carries it: family, raw IP bytes and port.
///
/// STUN defines its own small value type instead of using the runtime's
/// socket address so the codec stays free of any socket API; the runtime
/// converts at its edge. The IP is kept as network-order bytes (4 or 16),
/// which is exactly what the address attributes encode.
public struct STUNAddress: Hashable, Sendable, CustomStringConvertible {
    /// Address family numbers used inside STUN attributes (RFC 8489 §14.1).
    public enum Family: UInt8, Hashable, Sendable {
        case ipv4 = 0x01
        case ipv6 = 0x02

        /// Length of an address of this family in bytes.
        public var addressLength: Int { self == .ipv4 ? 4 : 16 }
    }

    public let family: Family
    /// Network-order address bytes: 4 for IPv4, 16 for IPv6.
    public let ip: [UInt8]
    public var port: UInt16

    /// `nil` unless `ip` has 4 or 16 bytes.
    public init?(ip: [UInt8], port: UInt16) {
        switch ip.count {
        case 4: family = .ipv4
        case 16: family = .ipv6
        default: return nil
        }
        self.ip = ip
        self.port = port
    }

    public init(ipv4 a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8, port: UInt16) {
        family = .ipv4
        ip = [a, b, c, d]
        self.port = port
    }

    /// An IPv6 address from its eight 16-bit groups.
    public init(ipv6 groups: (UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16), port: UInt16) {
        let g = [groups.0, groups.1, groups.2, groups.3, groups.4, groups.5, groups.6, groups.7]
        family = .ipv6
        ip = g.flatMap { [UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)] }
        self.port = port
    }

    /// The same IP with another port, as used for OTHER-ADDRESS on a
    /// single-IP server.
    public func with(port: UInt16) -> STUNAddress {
        var copy = self
        copy.port = port
        return copy
    }

    /// `1.2.3.4` or the RFC 5952 canonical IPv6 text (`2001:db8::1`).
    public var ipDescription: String {
        switch family {
        case .ipv4:
            return ip.map(String.init).joined(separator: ".")
        case .ipv6:
            return Self.ipv6Text(ip)
        }
    }

    /// `1.2.3.4:5` or `[::1]:5`.
    public var description: String {
        family == .ipv4 ? "\(ipDescription):\(port)" : "[\(ipDescription)]:\(port)"
    }

    /// RFC 5952 §4: lowercase hex, no leading zeros, the longest run (first
    /// on ties) of two or more zero groups replaced by `::`.
    private static func ipv6Text(_ bytes: [UInt8]) -> String {
        var groups: [UInt16] = []
        var i = 0
        while i + 1 < bytes.count {
            groups.append(UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]))
            i += 2
        }
        var bestStart = -1, bestLength = 0, runStart = -1
        for (index, group) in groups.enumerated() {
            if group == 0 {
                if runStart < 0 { runStart = index }
                let length = index - runStart + 1
                if length > bestLength { bestStart = runStart; bestLength = length }
            } else {
                runStart = -1
            }
        }
        let hex = groups.map { String($0, radix: 16) }
        guard bestLength >= 2 else { return hex.joined(separator: ":") }
        let head = hex[..<bestStart].joined(separator: ":")
        let tail = hex[(bestStart + bestLength)...].joined(separator: ":")
        return head + "::" + tail
    }
}

extension STUNAddress {
    /// Reachable from the internet at large: not loopback, private (RFC 1918,
    /// IPv6 ULA), link-local, carrier-grade NAT (100.64/10) or unspecified.
    public var isGlobal: Bool {
        switch family {
        case .ipv4:
            let (a, b) = (ip[0], ip[1])
            if a == 0 || a == 10 || a == 127 || a >= 224 { return false }
            if a == 169 && b == 254 { return false }
            if a == 172 && (16...31).contains(b) { return false }
            if a == 192 && b == 168 { return false }
            if a == 100 && (64...127).contains(b) { return false }
            return true
        case .ipv6:
            if ip.allSatisfy({ $0 == 0 }) || ip == [UInt8](repeating: 0, count: 15) + [1] { return false }
            if ip[0] & 0xFE == 0xFC { return false }                  // fc00::/7 unique local
            if ip[0] == 0xFE && ip[1] & 0xC0 == 0x80 { return false } // fe80::/10 link-local
            if ip[0] == 0xFF { return false }                          // multicast
            return true
        }
    }
}

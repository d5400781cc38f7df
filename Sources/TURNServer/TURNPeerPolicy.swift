import STUN

/// Which peer addresses a relayed address may send to and hear from: the
/// rule that keeps the relay from being an open proxy into the server's
/// own network (RFC 8656 §21.3, §17; coturn's `denied-peer-ip`).
///
/// Denied unless listed in `allowed`: loopback, unspecified, RFC 1918,
/// CGNAT (100.64/10), link-local, multicast and reserved IPv4, IPv6
/// loopback, unique-local, link-local and multicast, and IPv4 addresses
/// hidden in IPv4-mapped IPv6. Always denied, even when listed: the
/// server's own service ports on its own addresses, so a relay cannot be
/// pointed back at the signaling server, the STUN responder or itself.
/// Other allocations' relayed addresses on this server are always allowed:
/// two clients that both relay here reach each other that way.
public struct TURNPeerPolicy: Sendable {
    /// An address block, `10.0.0.0/8` or `fd00::/8` (`--turn-allow-peer`).
    public struct Prefix: Hashable, Sendable {
        public let ip: [UInt8]
        public let length: Int

        /// `nil` unless `ip` has 4 or 16 bytes and `length` fits it.
        public init?(ip: [UInt8], length: Int) {
            guard ip.count == 4 || ip.count == 16, (0...ip.count * 8).contains(length) else { return nil }
            self.ip = ip
            self.length = length
        }

        public func contains(_ address: [UInt8]) -> Bool {
            guard address.count == ip.count else { return false }
            var bits = length
            var index = 0
            while bits > 0 {
                let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
                if address[index] & mask != ip[index] & mask { return false }
                bits -= 8
                index += 1
            }
            return true
        }
    }

    public var allowed: [Prefix] = []
    /// The server's own addresses (every local interface address).
    public var ownAddresses: Set<[UInt8]> = []
    /// The server's service ports (HTTP, STUN and TURN listeners).
    public var servicePorts: Set<UInt16> = []

    public init(allowed: [Prefix] = [], ownAddresses: Set<[UInt8]> = [], servicePorts: Set<UInt16> = []) {
        self.allowed = allowed
        self.ownAddresses = ownAddresses
        self.servicePorts = servicePorts
    }

    public enum Verdict: Hashable, Sendable {
        case allowed
        /// Not globally routable and not in an allowed block.
        case notGlobal
        /// One of the server's own service ports.
        case serverPort
    }

    /// The verdict for a peer address. Permissions are per IP (RFC 8656
    /// §9), so a port only matters for the server's own service ports.
    public func verdict(for peer: STUNAddress) -> Verdict {
        if servicePorts.contains(peer.port), ownAddresses.contains(peer.ip) || peer.ip.allSatisfy({ $0 == 0 }) {
            return .serverPort
        }
        if Self.isGlobal(peer.ip) || allowed.contains(where: { $0.contains(peer.ip) }) { return .allowed }
        return .notGlobal
    }

    /// Whether a permission for this IP (any port) may be installed.
    public func permits(ip: [UInt8]) -> Bool {
        Self.isGlobal(ip) || allowed.contains { $0.contains(ip) }
    }

    static func isGlobal(_ ip: [UInt8]) -> Bool {
        guard let address = STUNAddress(ip: ip, port: 0) else { return false }
        if ip.count == 16 {
            // ::ffff:a.b.c.d and the NAT64 well-known prefix 64:ff9b::/96
            // reach the IPv4 address inside: judge that one.
            let mapped = ip.prefix(10).allSatisfy { $0 == 0 } && ip[10] == 0xFF && ip[11] == 0xFF
            let nat64 = ip.prefix(12).elementsEqual([0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0])
            if mapped || nat64 { return isGlobal(Array(ip.suffix(4))) }
            // ::/96 (IPv4-compatible, deprecated) is never a real peer.
            if ip.prefix(12).allSatisfy({ $0 == 0 }) { return false }
        }
        return address.isGlobal
    }
}

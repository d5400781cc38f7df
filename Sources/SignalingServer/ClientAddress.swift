import HTTP1
import Runtime

/// Who a request or connection counts against, for every limit per client.
///
/// A client is an IPv4 address or an IPv6 /64: one IPv6 subscriber gets a
/// whole /64 (often a /56 or /48), so counting single IPv6 addresses would
/// give each of its 2^64 addresses a fresh limit. IPv4-mapped addresses
/// (`::ffff:a.b.c.d`, from a dual-stack socket) count as the IPv4 address.
///
/// Behind a load balancer every request comes from the balancer, so one
/// client's misses would limit everybody. For a peer listed in
/// `--trusted-proxy`, the client is the last `X-Forwarded-For` entry: the
/// one that proxy appended (HAProxy `option forwardfor`), which a client
/// cannot forge; anything earlier in the header is the client's own claim
/// and ignored. Requests from any other peer use the peer's address.
enum ClientAddress {
    /// The client key of a request: `"192.0.2.1"` or `"2001:db8:1:2::/64"`.
    static func of(_ request: HTTPRequest, peer: SocketAddress, trustedProxies: [String]) -> String {
        guard isTrustedProxy(peer, trustedProxies) else { return key(peer) }
        guard let last = request.headers.values("X-Forwarded-For").last?.split(separator: ",").last,
              let address = SocketAddress(ip: last.trimmingCharacters(in: " \t"), port: 0) else { return key(peer) }
        return key(address)
    }

    static func isTrustedProxy(_ peer: SocketAddress, _ trustedProxies: [String]) -> Bool {
        !trustedProxies.isEmpty && trustedProxies.contains(peer.ip)
    }

    /// The key of one address: IPv4 as it is, IPv6 as its /64.
    static func key(_ address: SocketAddress) -> String {
        guard address.family == .ipv6 else { return address.ip }
        let prefix = Array(address.ipBytes.prefix(8)) + [UInt8](repeating: 0, count: 8)
        return (SocketAddress(ipBytes: prefix, port: 0)?.ip ?? address.ip) + "/64"
    }
}

private extension Substring {
    func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}

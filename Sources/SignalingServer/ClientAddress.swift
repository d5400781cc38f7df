import HTTP1
import Runtime

/// The address a request came from, for the rate limit and the logs.
///
/// Behind a load balancer every request comes from the balancer, so one
/// client's misses would limit everybody. For a peer listed in
/// `--trusted-proxy`, the client is the last `X-Forwarded-For` entry: the
/// one that proxy appended (HAProxy `option forwardfor`), which a client
/// cannot forge; anything earlier in the header is the client's own claim
/// and ignored. Requests from any other peer use the peer's address.
enum ClientAddress {
    static func of(_ request: HTTPRequest, peer: SocketAddress, trustedProxies: [String]) -> String {
        guard !trustedProxies.isEmpty, trustedProxies.contains(peer.ip) else { return peer.ip }
        guard let last = request.headers.values("X-Forwarded-For").last?.split(separator: ",").last else { return peer.ip }
        let address = last.trimmingCharacters(in: " \t")
        guard SocketAddress(ip: address, port: 0) != nil else { return peer.ip }
        return address
    }
}

private extension Substring {
    func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}

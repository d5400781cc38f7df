/// A `stun:` or `turn:` URL (RFC 7064 / 7065) as `/api/ice-servers` and
/// `--ice-server` give them: `stun:HOST[:PORT]`, `turn:HOST[:PORT]?transport=udp|tcp`.
public struct ICEServerURL: Equatable, Sendable {
    public enum Scheme: String, Sendable { case stun, stuns, turn, turns }

    public let scheme: Scheme
    public let host: String
    public let port: UInt16
    public let transport: String?

    public var isSTUN: Bool { scheme == .stun }

    /// `turn:` over UDP or TCP, or `turns:` over TLS on TCP (not DTLS).
    public var isSupportedTURN: Bool {
        switch scheme {
        case .turn: transport == nil || transport == "udp" || transport == "tcp"
        case .turns: transport == nil || transport == "tcp"
        case .stun, .stuns: false
        }
    }

    public init?(_ text: String) {
        guard let colon = text.firstIndex(of: ":"), let scheme = Scheme(rawValue: text[..<colon].lowercased()) else { return nil }
        self.scheme = scheme
        var rest = text[text.index(after: colon)...]
        var transport: String? = nil
        if let q = rest.firstIndex(of: "?") {
            let query = rest[rest.index(after: q)...]
            rest = rest[..<q]
            for pair in query.split(separator: "&") where pair.hasPrefix("transport=") {
                transport = String(pair.dropFirst("transport=".count)).lowercased()
            }
        }
        let secure = scheme == .stuns || scheme == .turns
        guard let (hostPart, portPart) = HostPort.split(rest) else { return nil }
        guard !hostPart.isEmpty, !hostPart.contains("/"), !hostPart.contains("@") else { return nil }
        host = String(hostPart)
        if let portPart {
            guard let p = HostPort.port(portPart) else { return nil }
            port = p
        } else {
            port = secure ? 5349 : 3478
        }
        self.transport = transport
    }
}

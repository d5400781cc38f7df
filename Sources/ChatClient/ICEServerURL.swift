/// A `stun:` or `turn:` URL (RFC 7064 / 7065) as `/api/ice-servers` and
/// `--ice-server` give them: `stun:HOST[:PORT]`, `turn:HOST[:PORT]?transport=udp|tcp`.
public struct ICEServerURL: Equatable, Sendable {
    public enum Scheme: String, Sendable { case stun, stuns, turn, turns }

    public let scheme: Scheme
    public let host: String
    public let port: UInt16
    public let transport: String?

    public var isSTUN: Bool { scheme == .stun }

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
        var hostPart = rest
        var portPart: Substring? = nil
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            hostPart = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") { portPart = after.dropFirst() } else if !after.isEmpty { return nil }
        } else if let c = rest.lastIndex(of: ":") {
            hostPart = rest[..<c]
            portPart = rest[rest.index(after: c)...]
        }
        guard !hostPart.isEmpty, !hostPart.contains("/"), !hostPart.contains("@") else { return nil }
        host = String(hostPart)
        if let portPart {
            guard let p = UInt16(portPart), p > 0 else { return nil }
            port = p
        } else {
            port = secure ? 5349 : 3478
        }
        self.transport = transport
    }
}

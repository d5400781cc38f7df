/// The signaling server a client talks to: `http://` or `https://` (REST) with
/// the WebSocket on the same host and port (`ws://` / `wss://`).
public struct ServerURL: Equatable, Sendable, CustomStringConvertible {
    public let secure: Bool
    /// Host name or IP literal, without brackets.
    public let host: String
    public let port: UInt16

    public static let defaultURL = "http://localhost:8080"

    public init?(_ text: String) {
        var rest = Substring(text.trimmingCharacters(in: " \t"))
        let lower = rest.lowercased()
        if lower.hasPrefix("https://") || lower.hasPrefix("wss://") {
            secure = true
        } else if lower.hasPrefix("http://") || lower.hasPrefix("ws://") {
            secure = false
        } else {
            return nil
        }
        rest = rest.drop(while: { $0 != ":" }).dropFirst(3)
        if let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            // Only the root is supported: the API lives at /api and the WebSocket at any path.
            rest = rest[..<slash]
        }
        guard !rest.isEmpty, !rest.contains("@") else { return nil }
        guard let (hostPart, portPart) = HostPort.split(rest) else { return nil }
        guard !hostPart.isEmpty, hostPart.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else { return nil }
        host = String(hostPart)
        if let portPart {
            guard let p = HostPort.port(portPart) else { return nil }
            port = p
        } else {
            port = secure ? 443 : 80
        }
    }

    /// `host` as it goes in a `Host` header or URL (IPv6 in brackets).
    public var authority: String {
        let h = host.contains(":") ? "[\(host)]" : host
        let defaultPort: UInt16 = secure ? 443 : 80
        return port == defaultPort ? h : "\(h):\(port)"
    }

    public var description: String { "\(secure ? "https" : "http")://\(authority)" }
}

extension String {
    package func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}

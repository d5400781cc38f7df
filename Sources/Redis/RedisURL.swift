/// Where the Redis server is: `redis://[user[:password]@]HOST[:PORT][/DB]`,
/// or `rediss://` for TLS. A password in the URL is accepted by the parser so
/// it can be refused with a clear message (argv is visible to every local
/// user); `chatcli serve` takes it from the environment or a file instead.
public struct RedisURL: Equatable, Sendable {
    public var tls: Bool
    public var host: String
    public var port: UInt16
    public var database: Int
    public var user: String?
    public var password: String?

    public init(tls: Bool = false, host: String, port: UInt16 = 6379, database: Int = 0, user: String? = nil, password: String? = nil) {
        self.tls = tls
        self.host = host
        self.port = port
        self.database = database
        self.user = user
        self.password = password
    }

    /// nil when `text` is not such a URL.
    public init?(_ text: String) {
        let rest: Substring
        if text.hasPrefix("redis://") {
            tls = false
            rest = text.dropFirst("redis://".count)
        } else if text.hasPrefix("rediss://") {
            tls = true
            rest = text.dropFirst("rediss://".count)
        } else {
            return nil
        }
        var authority = rest
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            path = rest[rest.index(after: slash)...]
        }
        user = nil
        password = nil
        if let at = authority.lastIndex(of: "@") {
            let credentials = authority[..<at]
            authority = authority[authority.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                user = credentials[..<colon].isEmpty ? nil : String(credentials[..<colon])
                password = String(credentials[credentials.index(after: colon)...])
            } else if !credentials.isEmpty {
                user = String(credentials)
            }
        }
        // [v6]:port, host:port, or host alone.
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        } else {
            host = String(authority)
        }
        guard !host.isEmpty, host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        if let portText {
            guard let p = UInt16(portText), p > 0 else { return nil }
            port = p
        } else {
            port = 6379
        }
        if path.isEmpty {
            database = 0
        } else {
            guard path.utf8.count <= 5, let db = Int(path), db >= 0 else { return nil }
            database = db
        }
    }

    /// The URL without the password, for logs.
    public var redacted: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        let userPart = user.map { "\($0)@" } ?? ""
        return "\(tls ? "rediss" : "redis")://\(userPart)\(hostPart):\(port)/\(database)"
    }
}

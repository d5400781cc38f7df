import COpenSSL
import HTTP1
import Wire

/// The answer of `GET /api/ice-servers`: our STUN responder, addressed by the
/// host the client used, and TURN with time-limited REST API credentials
/// (see `TURNCredentials`) when configured. On a members-only server a
/// request that names no room gets no TURN entry and `"turnMembersOnly":true`,
/// so a client can tell "members only" from "no TURN here".
public struct ICEServerConfiguration: Sendable {
    public var stunPort: Int
    /// Each URL is served exactly as given.
    public var turnURLs: [String]
    /// The shared secret with the TURN server; no TURN entry without it.
    public var turnSecret: [UInt8]?
    public var credentialLifetimeSeconds: Int64
    /// TURN credentials only for a member of a live room who names it
    /// (`?roomid=R&deviceId=D`); a request that names no room gets the STUN
    /// entry alone.
    public var membersOnly: Bool
    /// Used when the request has no usable `Host` header.
    public var fallbackHost: String
    /// The embedded relay's ports, advertised when no `turnURLs` are given:
    /// UDP on the STUN port, TCP (TLS when `tls`) on the HTTP port, on
    /// `host` (`serve --turn-host`, this instance's own name in a cluster)
    /// or else the host the request came to.
    public var embeddedRelay: (udpPort: Int, streamPort: Int, tls: Bool, host: String?)?

    public init(stunPort: Int = 3478, turnURLs: [String] = [], turnSecret: [UInt8]? = nil, credentialLifetimeSeconds: Int64 = 86_400, membersOnly: Bool = false, fallbackHost: String = "localhost") {
        self.stunPort = stunPort
        self.turnURLs = turnURLs
        self.turnSecret = turnSecret
        self.credentialLifetimeSeconds = credentialLifetimeSeconds
        self.membersOnly = membersOnly
        self.fallbackHost = fallbackHost
    }

    func body<G: RandomNumberGenerator>(hostHeader: String?, grantee: TURNGrantee, now: UnixTime, random: inout G) -> JSON {
        let host = ICEServerConfiguration.host(fromHostHeader: hostHeader) ?? fallbackHost
        var body: [(String, JSON)] = []
        // Port 0: no STUN responder (the embedded LAN endpoint).
        var servers: [JSON] = stunPort > 0 ? [["urls": [.string("stun:\(host):\(stunPort)")]]] : []
        let turnURLs = turnURLs.isEmpty ? embeddedRelayURLs(host: host) : turnURLs
        if !turnURLs.isEmpty, let secret = turnSecret {
            if let credentials = TURNCredentials(for: grantee, secret: secret, lifetimeSeconds: credentialLifetimeSeconds, now: now, random: &random) {
                servers.append([
                    "urls": .array(turnURLs.map(JSON.string)),
                    "username": .string(credentials.username),
                    "credential": .string(credentials.credential),
                ])
            } else if case .nobody = grantee {
                body.append(("turnMembersOnly", true))
            }
        }
        return .object([("iceServers", .array(servers))] + body)
    }

    private func embeddedRelayURLs(host requested: String) -> [String] {
        guard let relay = embeddedRelay else { return [] }
        let host = relay.host ?? requested
        return ["turn:\(host):\(relay.udpPort)?transport=udp",
                "\(relay.tls ? "turns" : "turn"):\(host):\(relay.streamPort)?transport=tcp"]
    }

    /// The host part of a `Host` header: `example.com:8080` → `example.com`,
    /// `[::1]:8080` → `[::1]` (brackets kept, as a URL needs them), a bare
    /// IPv6 address gets brackets. Nil for anything that could smuggle
    /// characters into the URL.
    static func host(fromHostHeader header: String?) -> String? {
        guard let header = header.map({ String($0.trimmingSpacesAndTabs()) }), !header.isEmpty else { return nil }
        if header.hasPrefix("[") {
            guard let close = header.firstIndex(of: "]") else { return nil }
            let inner = header[header.index(after: header.startIndex)..<close]
            guard !inner.isEmpty, inner.utf8.allSatisfy(isIPv6Character) else { return nil }
            return "[\(inner)]"
        }
        let colons = header.utf8.filter { $0 == UInt8(ascii: ":") }.count
        if colons > 1 {
            guard header.utf8.allSatisfy(isIPv6Character) else { return nil }
            return "[\(header)]"
        }
        let name = colons == 1 ? String(header.prefix { $0 != ":" }) : header
        guard !name.isEmpty, name.utf8.allSatisfy(isHostnameCharacter) else { return nil }
        return name
    }

    private static func isIPv6Character(_ c: UInt8) -> Bool {
        isHex(c) || c == UInt8(ascii: ":") || c == UInt8(ascii: ".") || c == UInt8(ascii: "%")
    }

    private static func isHex(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || (c | 0x20 >= UInt8(ascii: "a") && c | 0x20 <= UInt8(ascii: "f"))
    }

    private static func isHostnameCharacter(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    /// HMAC-SHA1 (RFC 2104) through OpenSSL; nil only if OpenSSL fails.
    static func hmacSHA1(key: [UInt8], message: [UInt8]) -> [UInt8]? {
        guard !key.isEmpty else { return nil }
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBufferPointer { k in
            message.withUnsafeBufferPointer { m in
                HMAC(EVP_sha1(), k.baseAddress, Int32(k.count), m.baseAddress, m.count, &out, &length)
            }
        }
        guard result != nil, length == 20 else { return nil }
        return Array(out.prefix(Int(length)))
    }
}

extension String {
    fileprivate func trimmingSpacesAndTabs() -> Substring {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return s
    }
}

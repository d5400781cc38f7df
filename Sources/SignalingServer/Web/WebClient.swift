import HTTP1

/// Serves the browser client (`GET /`, `GET /j/CODE` and its assets) with
/// the headers that keep it safe: a strict Content-Security-Policy (no
/// inline script or style, connections only to this server), no sniffing,
/// no referrer (the code in `/j/CODE` must not leak to anyone), no framing,
/// and an ETag per asset so revalidation is a `304`.
public enum WebClient {
    /// The answer for a web path, or nil when the path is not one (the REST
    /// router decides then). `secure`: the server speaks TLS, so the socket is `wss://`.
    public static func response(to request: HTTPRequest, secure: Bool) -> HTTPResponse? {
        guard let asset = asset(for: request.path) else { return nil }
        guard request.method == "GET" || request.method == "HEAD" else {
            var response = HTTPResponse.json(405, ["error": "method_not_allowed"])
            response.headers.set("Allow", "GET, HEAD")
            return response
        }
        var headers = HTTPHeaders([
            ("Content-Type", asset.contentType),
            ("Cache-Control", "no-cache"),
            ("ETag", asset.etag),
        ])
        for (name, value) in securityHeaders(host: request.headers["Host"], secure: secure) { headers.add(name, value) }
        if let tags = request.headers["If-None-Match"], matches(tags, asset.etag) {
            return HTTPResponse(status: 304, headers: headers)
        }
        // HEAD: the headers GET would send, Content-Length included, and no body.
        if request.method == "HEAD" {
            headers.set("Content-Length", "\(asset.bytes.count)")
            return HTTPResponse(status: 200, headers: headers)
        }
        return HTTPResponse(status: 200, headers: headers, body: asset.bytes)
    }

    static func asset(for path: String) -> WebAsset? {
        if path == "/" || isInvitePath(path) { return WebAsset.index }
        return WebAsset.all.first { $0.path == path && $0.path != "/" }
    }

    /// `/j/` and six ASCII digits.
    static func isInvitePath(_ path: String) -> Bool {
        let utf8 = Array(path.utf8)
        guard utf8.count == 9, path.hasPrefix("/j/") else { return false }
        return utf8[3...].allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// The path as it may appear in a log line: an invite's code is a
    /// secret for as long as the room waits, so `/j/…` never shows it.
    public static func loggedPath(_ path: String) -> String {
        path.hasPrefix("/j/") ? "/j/-" : path
    }

    static func securityHeaders(host: String?, secure: Bool) -> [(String, String)] {
        // 'self' covers the same-origin ws(s):// in CSP 3; the explicit
        // socket origin is for browsers that predate that rule.
        var connect = "'self'"
        if let host, isSafeHost(host) { connect += (secure ? " wss://" : " ws://") + host }
        let policy = [
            "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self'",
            "connect-src \(connect)", "object-src 'none'", "base-uri 'none'", "form-action 'none'",
            "frame-ancestors 'none'",
        ].joined(separator: "; ")
        return [
            ("Content-Security-Policy", policy),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
            ("X-Frame-Options", "DENY"),
            ("Cross-Origin-Opener-Policy", "same-origin"),
        ]
    }

    /// A Host header that can go into a policy unchanged: a name or address
    /// and an optional port, nothing that could end the directive.
    static func isSafeHost(_ host: String) -> Bool {
        !host.isEmpty && host.utf8.count <= 255 && host.utf8.allSatisfy {
            switch $0 {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"):
                return true
            default:
                return false
            }
        }
    }

    /// `If-None-Match`: `*` or a list of entity tags (weak ones compare by value).
    static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { tag in
            var tag = tag.trimmingCharacters(in: " \t")
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == "*" || tag == etag
        }
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> Substring {
        var s = self
        while let c = s.first, set.contains(c) { s.removeFirst() }
        while let c = s.last, set.contains(c) { s.removeLast() }
        return s
    }
}

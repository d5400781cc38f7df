import HTTP1

/// `serve --cors-origin ORIGIN`: lets a page hosted at ORIGIN call the REST
/// API. Off by default (the web client is same-origin); only `/api/` paths
/// get the headers, and preflights are answered here.
public struct CORSPolicy: Sendable, Equatable {
    public let origin: String

    /// `scheme://host[:port]` with scheme http or https and nothing after; nil otherwise.
    public init?(origin: String) {
        guard origin.hasPrefix("http://") || origin.hasPrefix("https://") else { return nil }
        let rest = origin.drop(while: { $0 != ":" }).dropFirst(3)
        guard !rest.isEmpty, rest.utf8.count <= 255, WebClient.isSafeHost(String(rest)) else { return nil }
        self.origin = origin
    }

    static func applies(to path: String) -> Bool { path.hasPrefix("/api/") }

    /// The answer to a preflight (`OPTIONS` on an API path), or nil for other requests.
    func preflight(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.method == "OPTIONS", Self.applies(to: request.path) else { return nil }
        var response = HTTPResponse(status: 204)
        response.headers.add("Access-Control-Allow-Methods", "GET, POST, DELETE")
        response.headers.add("Access-Control-Allow-Headers", "Content-Type")
        response.headers.add("Access-Control-Max-Age", "600")
        return response
    }

    func decorate(_ response: inout HTTPResponse, for request: HTTPRequest) {
        guard Self.applies(to: request.path) else { return }
        response.headers.set("Access-Control-Allow-Origin", origin)
        response.headers.add("Vary", "Origin")
    }
}

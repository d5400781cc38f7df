import COpenSSL
import HTTP1
import Wire

/// The server side of the opening handshake (RFC 6455 §4.2) and the
/// `Sec-WebSocket-Accept` computation both sides share.
public enum WebSocketHandshake {
    /// The GUID appended to the key before hashing (§1.3).
    public static let magicGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
    public static let version = "13"

    /// base64(SHA-1(key + GUID)), e.g. `dGhlIHNhbXBsZSBub25jZQ==` → `s3pPLMBiTxaQ9kYGzzhZRbK+xOo=`.
    public static func accept(for key: String) -> String {
        let input = Array((key + magicGUID).utf8)
        var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
        _ = input.withUnsafeBufferPointer { inp in
            digest.withUnsafeMutableBufferPointer { out in
                SHA1(inp.baseAddress, inp.count, out.baseAddress)
            }
        }
        return Base64.encode(digest)
    }

    /// True if the request asks for a WebSocket (`Upgrade: websocket`), so a
    /// router can send it here rather than to a REST handler.
    public static func isUpgradeRequest(_ request: HTTPRequest) -> Bool {
        request.headers.contains("Upgrade", token: "websocket")
    }

    /// What to answer an upgrade request with.
    public enum Outcome: Equatable, Sendable {
        /// A `101 Switching Protocols`: send it, then speak WebSocket.
        case accepted(HTTPResponse)
        /// A 400, or a 426 naming the supported version; the connection stays HTTP.
        case rejected(HTTPResponse, WebSocketError)

        public var response: HTTPResponse {
            switch self {
            case .accepted(let r), .rejected(let r, _): return r
            }
        }
    }

    /// Validates an upgrade request (§4.2.1) and builds the response. No
    /// extensions or subprotocols are negotiated, so none are echoed.
    public static func respond(to request: HTTPRequest) -> Outcome {
        do {
            let key = try validate(request)
            var headers = HTTPHeaders()
            headers.add("Upgrade", "websocket")
            headers.add("Connection", "Upgrade")
            headers.add("Sec-WebSocket-Accept", accept(for: key))
            return .accepted(HTTPResponse(status: 101, headers: headers))
        } catch {
            var headers = HTTPHeaders()
            headers.add("Content-Type", "text/plain; charset=utf-8")
            if error == .handshakeUnsupportedVersion {
                // §4.4: name the versions we speak; RFC 9110 §15.5.22: 426 carries Upgrade.
                headers.add("Sec-WebSocket-Version", version)
                headers.add("Upgrade", "websocket")
                return .rejected(HTTPResponse(status: 426, headers: headers, body: Array("WebSocket version 13 required\n".utf8)), error)
            }
            return .rejected(HTTPResponse(status: 400, headers: headers, body: Array("Invalid WebSocket handshake\n".utf8)), error)
        }
    }

    /// Returns the client's key if the request is a valid opening handshake.
    public static func validate(_ request: HTTPRequest) throws(WebSocketError) -> String {
        guard request.method == "GET" else { throw .handshakeNotGET }
        guard !request.isHTTP10 else { throw .handshakeNotHTTP11 }
        guard request.headers["Host"] != nil else { throw .handshakeMissingHost }
        guard request.headers.contains("Upgrade", token: "websocket") else { throw .handshakeMissingUpgrade }
        guard request.headers.contains("Connection", token: "upgrade") else { throw .handshakeMissingConnectionUpgrade }
        guard request.headers.values("Sec-WebSocket-Version") == [version] else { throw .handshakeUnsupportedVersion }
        let keys = request.headers.values("Sec-WebSocket-Key")
        guard keys.count == 1, let key = keys.first, Base64.decode(key)?.count == 16 else { throw .handshakeInvalidKey }
        return key
    }
}

/// The client side of the opening handshake (RFC 6455 §4.1): a random key,
/// the upgrade request, and the check of the server's `101`.
public struct WebSocketClientHandshake: Sendable {
    /// base64 of 16 random bytes.
    public let key: String

    /// A handshake with a fresh key from `rng` (inject a seeded one in tests).
    public init<R: RandomNumberGenerator>(using rng: inout R) {
        let nonce = (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }
        key = Base64.encode(nonce)
    }

    /// A handshake with a given 16-byte nonce; nil for any other length.
    public init?(nonce: [UInt8]) {
        guard nonce.count == 16 else { return nil }
        key = Base64.encode(nonce)
    }

    /// The upgrade request for `target` (such as `/` or `/ws`) on `host`
    /// (`name` or `name:port`, as the `Host` header wants it).
    public func request(target: String, host: String, extraHeaders: HTTPHeaders = HTTPHeaders()) -> HTTPRequest {
        var headers = HTTPHeaders()
        headers.add("Host", host)
        headers.add("Upgrade", "websocket")
        headers.add("Connection", "Upgrade")
        headers.add("Sec-WebSocket-Key", key)
        headers.add("Sec-WebSocket-Version", WebSocketHandshake.version)
        for field in extraHeaders.fields { headers.add(field.name, field.value) }
        return HTTPRequest(method: "GET", target: target, headers: headers)
    }

    /// Checks the server's answer (§4.1, "the client MUST validate").
    public func validate(_ response: HTTPResponse) throws(WebSocketError) {
        guard response.status == 101 else { throw .handshakeUnexpectedStatus(response.status) }
        guard response.headers.contains("Upgrade", token: "websocket") else { throw .handshakeMissingUpgrade }
        guard response.headers.contains("Connection", token: "upgrade") else { throw .handshakeMissingConnectionUpgrade }
        let accepts = response.headers.values("Sec-WebSocket-Accept")
        guard accepts == [WebSocketHandshake.accept(for: key)] else { throw .handshakeInvalidAccept }
        // We offered neither, so a server that picks one is not speaking our protocol.
        let extensions = response.headers.values("Sec-WebSocket-Extensions") + response.headers.values("Sec-WebSocket-Protocol")
        guard extensions.allSatisfy({ $0.isEmpty }) else { throw .handshakeUnexpectedExtension }
    }
}

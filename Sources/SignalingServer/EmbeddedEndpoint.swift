import HTTP1
import WebSocket

/// The endpoint `chatcli create --lan` runs (``ServerConfiguration/embedded``)
/// listens where the whole local network can reach it, but only the joiner
/// has business there: from another host it answers the joiner's calls
/// (accept, the ICE server list, the WebSocket) and nothing else. Creating,
/// looking up, checking or deleting rooms, purging, the web client and the
/// health check are for the creator's own client, over loopback; anyone
/// else gets 403 `loopback_only`.
enum EmbeddedEndpoint {
    static func answersFromAnotherHost(_ request: HTTPRequest) -> Bool {
        if WebSocketHandshake.isUpgradeRequest(request) { return true }
        var path = Substring(request.path)
        if path.count > 1, path.last == "/" { path = path.dropLast() }   // as RESTRouter
        switch (request.method, path) {
        case ("POST", "/api/rooms/accept"), ("GET", "/api/ice-servers"): return true
        default: return false
        }
    }

    static let refusal = HTTPResponse.json(403, ["error": "loopback_only"])
}

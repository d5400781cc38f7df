import HTTP1
import Runtime
import WebSocket

/// One client connection: HTTP/1.1 requests (kept alive, answered in order)
/// until it upgrades to the signaling WebSocket.
final class ServerConnection {
    enum Mode {
        case http
        /// Held by a long poll: later pipelined requests wait their turn.
        case longPoll(LongPollToken, Timer, HTTPRequest, started: Instant)
        case webSocket
        /// An error was answered; read and drop what the client still sends
        /// so closing does not reset the connection under the answer.
        case draining
    }

    let id: ConnectionID
    let stream: any ByteStream
    let peer: SocketAddress
    let client: String
    var parser = HTTPRequestParser(maxHeadSize: 16 * 1024, maxBodySize: RESTRouter.maxBodyBytes)
    var socket: WebSocketConnection?
    var mode = Mode.http
    var lastActivity: Instant
    var pingOutstanding = false
    var requestStarted: Instant?
    /// The client this connection counts against (``ClientLimits``); nil
    /// until known (a trusted proxy's connection: at its first request).
    var limitKey: String?
    /// Nothing received yet: the first byte may still say TURN rather than HTTP.
    var isFresh = true
    /// The TCP connection under `stream` (its addresses, for the relay).
    weak var tcp: TCPConnection?
    /// Since when its output has been over the limit (reading paused).
    var backedUpSince: Instant?

    init(id: ConnectionID, stream: any ByteStream, peer: SocketAddress, client: String, now: Instant) {
        self.id = id
        self.stream = stream
        self.peer = peer
        self.client = client
        self.lastActivity = now
    }

    func write(_ response: HTTPResponse) { stream.write(response.serialized()) }

    /// Queues a WebSocket text frame and flushes it.
    func send(text: String) {
        guard var ws = socket else { return }
        _ = ws.sendText(text)
        socket = ws
        flush()
    }

    /// Sends a WebSocket ping; `pingOutstanding` until any traffic comes back.
    func ping() {
        guard var ws = socket else { return }
        _ = ws.ping()
        socket = ws
        pingOutstanding = true
        flush()
    }

    func flush() {
        guard var ws = socket else { return }
        while let bytes = ws.pollTransmit() { stream.write(bytes) }
        socket = ws
    }
}

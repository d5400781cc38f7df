import Wire

/// What an open WebSocket reports to its owner.
public enum WebSocketEvent: Equatable, Sendable {
    /// A complete text message (reassembled from fragments, valid UTF-8).
    case text(String)
    /// A complete binary message.
    case binary([UInt8])
    /// A ping from the peer; the pong answer is already queued.
    case ping([UInt8])
    /// A pong from the peer (an answer to our ping, or unsolicited).
    case pong([UInt8])
    /// A message larger than the limit was dropped; the connection is still
    /// usable, so the owner can answer with an application-level error.
    case messageTooBig(limit: Int)
    /// The peer sent Close (`code` nil if it gave none). If we had not sent
    /// Close yet, the echo is queued. The connection is now closed: flush
    /// ``WebSocketConnection/pollTransmit()`` and close the socket (a server
    /// closes TCP first, §7.1.1).
    case close(code: WebSocketCloseCode?, reason: String)
    /// The peer broke RFC 6455; a Close with `error.closeCode` is queued and
    /// the connection is closed.
    case failed(WebSocketError)
}

/// A sans-IO WebSocket endpoint (RFC 6455) for either role.
///
/// Bytes from the socket go into ``feed(_:)``, which returns events; bytes
/// for the socket come out of ``pollTransmit()``. The connection reassembles
/// fragmented messages (with control frames interleaved), validates UTF-8 as
/// fragments arrive, answers pings, runs the closing handshake, and fails the
/// connection with the close code the RFC asks for when the peer breaks a rule.
///
/// ```swift
/// var ws = WebSocketConnection.server()
/// for event in ws.feed(bytes) { ... }
/// ws.sendText(#"{"type":"pong"}"#)
/// if let out = ws.pollTransmit() { socket.write(out) }
/// ```
///
/// Per-connection state is a few words plus buffers that are released when
/// drained, so many idle connections stay cheap.
public struct WebSocketConnection: Sendable {
    public enum Role: Sendable { case client, server }

    /// What to do with a message over ``maxMessageSize``.
    public enum OversizedMessagePolicy: Sendable {
        /// Report ``WebSocketEvent/messageTooBig(limit:)`` and skip the message's
        /// remaining payload without buffering it; the connection stays open.
        case reportAndDiscard
        /// Fail the connection with close code 1009.
        case close
    }

    public enum State: Sendable, Equatable {
        case open
        /// We sent Close and wait for the peer's.
        case closing
        case closed
    }

    public let role: Role
    public let maxMessageSize: Int
    public let oversizedMessagePolicy: OversizedMessagePolicy
    public internal(set) var state = State.open

    /// Clients mask every frame with a fresh key (§5.3); injected so tests are
    /// deterministic and the core never reads a random source itself.
    let maskKeys: (@Sendable () -> UInt32)?

    var inbound = ByteQueue()
    var outbound: [UInt8] = []

    // The message being reassembled.
    var messageOpcode: WebSocketOpcode?
    var message: [UInt8] = []
    var messageUTF8 = UTF8Validator()
    /// The rest of the current message is being skipped (it was too big).
    var discardingMessage = false
    /// Payload bytes of the current frame still to skip.
    var discardRemaining = 0

    init(role: Role, maxMessageSize: Int, policy: OversizedMessagePolicy, maskKeys: (@Sendable () -> UInt32)?) {
        self.role = role
        self.maxMessageSize = maxMessageSize
        self.oversizedMessagePolicy = policy
        self.maskKeys = maskKeys
    }

    /// A server endpoint: expects masked frames, sends unmasked ones.
    public static func server(
        maxMessageSize: Int = 64 * 1024, oversizedMessagePolicy: OversizedMessagePolicy = .reportAndDiscard
    ) -> WebSocketConnection {
        WebSocketConnection(role: .server, maxMessageSize: maxMessageSize, policy: oversizedMessagePolicy, maskKeys: nil)
    }

    /// A client endpoint: masks its frames with keys from `maskKeys`.
    public static func client(
        maxMessageSize: Int = 64 * 1024, oversizedMessagePolicy: OversizedMessagePolicy = .reportAndDiscard,
        maskKeys: @escaping @Sendable () -> UInt32
    ) -> WebSocketConnection {
        WebSocketConnection(role: .client, maxMessageSize: maxMessageSize, policy: oversizedMessagePolicy, maskKeys: maskKeys)
    }

    public var isClosed: Bool { state == .closed }

    // MARK: Outbound

    /// Bytes to write to the socket, or nil if there are none.
    public mutating func pollTransmit() -> [UInt8]? {
        guard !outbound.isEmpty else { return nil }
        defer { outbound = [] }
        return outbound
    }

    /// Queues a text message; false (nothing queued) unless the connection is open.
    @discardableResult
    public mutating func sendText(_ text: String) -> Bool {
        guard state == .open else { return false }
        queueFrame(.text, Array(text.utf8))
        return true
    }

    @discardableResult
    public mutating func sendBinary(_ bytes: [UInt8]) -> Bool {
        guard state == .open else { return false }
        queueFrame(.binary, bytes)
        return true
    }

    /// Queues a ping; false if not open or the payload is over 125 bytes (§5.5).
    @discardableResult
    public mutating func ping(_ payload: [UInt8] = []) -> Bool {
        guard state == .open, payload.count <= 125 else { return false }
        queueFrame(.ping, payload)
        return true
    }

    /// Starts the closing handshake. The reason is cut to fit a control frame
    /// (123 bytes) on a character boundary. Codes that may not be sent
    /// (1005, 1006, 1015, unassigned) are replaced by 1000.
    public mutating func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        guard state == .open else { return }
        queueClose(code.isValidOnWire ? code : .normalClosure, reason: reason)
        state = .closing
    }

    mutating func queueFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8]) {
        WebSocketFrame.encode(opcode: opcode, maskKey: maskKeys?(), payload: payload, into: &outbound)
    }

    mutating func queueClose(_ code: WebSocketCloseCode?, reason: String) {
        var payload: [UInt8] = []
        if let code {
            payload = [UInt8(truncatingIfNeeded: code.rawValue >> 8), UInt8(truncatingIfNeeded: code.rawValue)]
            var budget = 123
            for scalar in reason.unicodeScalars {
                let utf8 = Array(String(scalar).utf8)
                guard utf8.count <= budget else { break }
                payload += utf8
                budget -= utf8.count
            }
        }
        queueFrame(.close, payload)
    }
}

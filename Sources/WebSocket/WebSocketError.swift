/// Everything that can go wrong in a WebSocket handshake or on an open
/// connection. Frame and message errors carry the close code the RFC asks
/// for (``closeCode``); handshake errors carry the HTTP status a server answers.
public enum WebSocketError: Error, Equatable, Sendable {
    // MARK: Opening handshake (RFC 6455 §4)
    /// The upgrade request is not a GET.
    case handshakeNotGET
    /// The upgrade request is HTTP/1.0 (RFC 6455 §4.1 needs 1.1).
    case handshakeNotHTTP11
    /// No `Host` header field.
    case handshakeMissingHost
    /// No `Upgrade: websocket`.
    case handshakeMissingUpgrade
    /// No `upgrade` token in `Connection`.
    case handshakeMissingConnectionUpgrade
    /// `Sec-WebSocket-Version` absent or not 13 (the server answers 426).
    case handshakeUnsupportedVersion
    /// `Sec-WebSocket-Key` absent, repeated, or not base64 of 16 bytes.
    case handshakeInvalidKey
    /// The server answered something other than 101.
    case handshakeUnexpectedStatus(Int)
    /// `Sec-WebSocket-Accept` does not match the key we sent.
    case handshakeInvalidAccept
    /// The server chose an extension or subprotocol we did not offer.
    case handshakeUnexpectedExtension

    // MARK: Framing (RFC 6455 §5)
    /// Opcode 3–7 or 0xB–0xF.
    case reservedOpcode(UInt8)
    /// RSV1–3 set with no extension negotiated.
    case reservedBitsSet
    /// A 64-bit payload length with its most significant bit set.
    case invalidPayloadLength
    /// A control frame longer than 125 bytes.
    case controlFrameTooLong
    /// A control frame without FIN.
    case fragmentedControlFrame
    /// A client frame without a mask (a server must fail the connection, §5.1).
    case unmaskedClientFrame
    /// A server frame with a mask (a client must fail the connection, §5.1).
    case maskedServerFrame
    /// A continuation frame with no message in progress.
    case unexpectedContinuation
    /// A new text/binary frame while a fragmented message is in progress.
    case expectedContinuation
    /// A Close frame with a one-byte payload.
    case invalidClosePayload
    /// A Close code that may not appear on the wire (§7.4).
    case invalidCloseCode(UInt16)
    /// A text message or close reason that is not valid UTF-8.
    case invalidUTF8
    /// A frame larger than a ``WebSocketFrameDecoder``'s limit.
    case frameTooLarge(Int)
    /// A message larger than the connection's limit (with the close policy).
    case messageTooBig(Int)

    /// The close code to fail the connection with, or nil for handshake errors.
    public var closeCode: WebSocketCloseCode? {
        switch self {
        case .handshakeNotGET, .handshakeNotHTTP11, .handshakeMissingHost, .handshakeMissingUpgrade,
             .handshakeMissingConnectionUpgrade, .handshakeUnsupportedVersion, .handshakeInvalidKey,
             .handshakeUnexpectedStatus, .handshakeInvalidAccept, .handshakeUnexpectedExtension:
            return nil
        case .invalidUTF8:
            return .invalidPayload
        case .frameTooLarge, .messageTooBig:
            return .messageTooBig
        case .reservedOpcode, .reservedBitsSet, .invalidPayloadLength, .controlFrameTooLong,
             .fragmentedControlFrame, .unmaskedClientFrame, .maskedServerFrame, .unexpectedContinuation,
             .expectedContinuation, .invalidClosePayload, .invalidCloseCode:
            return .protocolError
        }
    }
}

/// A Close frame status code (RFC 6455 §7.4).
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let normalClosure = WebSocketCloseCode(rawValue: 1000)
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// Reported when a Close frame had no code; never sent.
    public static let noStatusReceived = WebSocketCloseCode(rawValue: 1005)
    /// Reported when the connection dropped without a Close; never sent.
    public static let abnormalClosure = WebSocketCloseCode(rawValue: 1006)
    public static let invalidPayload = WebSocketCloseCode(rawValue: 1007)
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    public static let mandatoryExtension = WebSocketCloseCode(rawValue: 1010)
    public static let internalError = WebSocketCloseCode(rawValue: 1011)

    /// Whether the code may appear in a Close frame: 1000–1003, 1007–1014
    /// (1012–1014 are IANA-registered since the RFC), and 3000–4999 for
    /// libraries and applications. 1004–1006 and 1015 are reserved for
    /// local reporting, everything else is unassigned.
    public var isValidOnWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }
}

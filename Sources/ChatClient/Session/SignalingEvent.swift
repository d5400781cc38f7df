import Signaling

/// What the signaling WebSocket's driver tells the session (`ChatSession.handleSignaling`).
public enum SignalingEvent {
    /// The WebSocket is up and the server said `connected`.
    case open(clientID: String)
    case message(ServerMessage)
    /// The socket dropped (or missed the heartbeat); a reconnect is scheduled.
    case lost(ClientError, retryIn: Duration)
    /// Gave up for good (only for errors no retry can fix, such as TLS).
    case failed(ClientError)
}

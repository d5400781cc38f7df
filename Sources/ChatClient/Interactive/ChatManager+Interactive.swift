import PeerConnection

/// Where a chat stands, for the interactive prompt.
public enum ChatPhase: Equatable, Sendable {
    /// Talking to the server: creating the room or accepting the code.
    case starting
    case waitingForPeer
    /// Joining the room, negotiating, ICE, DTLS, SCTP.
    case connecting
    /// The chat channel is open over a working path (`host`, `srflx`, `prflx` or `relay`).
    case connected(path: String)
    /// The channel exists but its path stopped answering (consent lost).
    case pathLost
    /// The peer's process dropped out of the room (crash, lost network):
    /// what is typed waits for it to come back (`chatcli resume`).
    case peerAway
    /// The peer left the chat for good; the user leaves when ready.
    case peerLeft
    case leaving
}

/// What the interactive chat needs from the session beyond its events.
extension ChatManager {
    public var phase: ChatPhase {
        switch state {
        case .pairing: return .starting
        case .waitingForPeer: return .waitingForPeer
        case .joiningRoom, .inRoom:
            guard let connection = peer?.connection, connection.isOpen else { return .connecting }
            guard !connection.isPathDown, let pair = connection.selectedPair else { return .pathLost }
            return .connected(path: pair.path)
        case .leaving, .finished: return .leaving
        }
    }

    /// The current peer connection, for `/status` and `/verify`.
    public var connection: PeerConnection? { peer?.connection }

    /// Lines typed that wait for the channel.
    public var queuedMessages: Int { outbox.count }

    /// Messages typed that have not reached the peer yet (queued, or sent
    /// and not acknowledged): the prompt and `/status` show the count, and
    /// `/quit` warns about them.
    public var undeliveredMessages: Int { outbox.count }

    /// `/quit` and Ctrl-D: once connected, deliver what was typed, then leave;
    /// before that, leave at once. Exit status 0.
    public func quit() {
        if let peer, peer.connection.isOpen {
            endOfInput()
        } else {
            leave(status: 0)
        }
    }

    /// `/leave`: close the peer connection, then leave the room (no reconnect). Exit status 0.
    public func leaveNow() {
        leave(status: 0)
    }

    /// Sends on the `ctl` channel; false when it is not open (not connected
    /// yet, or the peer's app does not offer it).
    @discardableResult
    public func sendControl(_ message: ControlMessage) -> Bool {
        guard let peer, peer.connection.isControlOpen else { return false }
        do {
            try peer.connection.sendControl(message.text)
        } catch {
            return false
        }
        peer.pump()
        return true
    }
}

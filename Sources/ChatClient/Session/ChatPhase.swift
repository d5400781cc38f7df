import PeerConnection

/// Where a chat stands, for the interactive prompt.
public enum ChatPhase: Equatable, Sendable {
    /// Talking to the server: creating the room or accepting the code.
    case starting
    case waitingForPeer
    /// Joining the room, negotiating, ICE, DTLS, SCTP.
    case connecting
    /// Connecting, but the peer has said nothing for a while (frozen, asleep): ChatSession+Silence.
    case peerNotAnswering
    /// The chat channel is open over a working path (`host`, `srflx`, `prflx` or `relay`).
    case connected(path: String)
    /// The channel is open but the code did not prove the peer: nothing
    /// crosses until the person compares the safety words (`/verify ok`).
    case unproven
    /// The channel exists but its path stopped answering (consent lost).
    case pathLost
    /// The peer's process dropped out of the room (crash, lost network):
    /// what is typed waits for it to come back (`chatcli resume`).
    case peerAway
    /// The peer left the chat for good; the user leaves when ready.
    case peerLeft
    case leaving
    /// In a group room with at least one member connected: `members` here, this one included.
    case group(members: Int)
}

extension ChatPhase {
    /// The chat channel is open over a working path.
    public var isConnected: Bool {
        if case .connected = self { return true }
        return false
    }
}

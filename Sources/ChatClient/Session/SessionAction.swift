import HTTP1
import Signaling

/// What the session asks its driver to do (`ChatSession.pollAction`). The
/// driver does it and reports back: HTTP replies by id, signaling events,
/// peer events, the signaling leave's end.
public enum SessionAction {
    /// One REST call; answer with `handleReply(id, …)`.
    case http(id: Int, HTTPRequest, timeout: Duration)
    /// Drop the kept-alive REST connection (the room is joined; REST is done).
    case closeHTTP
    case signaling(SignalingCommand)
    /// Make a peer connection with these ICE servers (resolved by the
    /// driver, off the loop if it must); answer with `peerCreated` or
    /// `peerCreationFailed`, naming `request`.
    case createPeer(request: Int, isOfferer: Bool, iceServers: [ICEServerEntry])
    /// Close this connection gracefully, then release its sockets and relays
    /// once the peer confirmed or `grace` passed (a dead peer never confirms).
    case closePeer(any PeerTransport, grace: Duration)
    /// Release at once (no goodbye: the peer is gone or the session ends).
    case shutDownPeer(any PeerTransport)
    /// Something for the user (printed, or drawn by the interactive chat).
    case event(ChatEvent)
    /// What a file transfer did, for the user.
    case transfer(FileTransfers.Update)
    /// A lifecycle change worth saving in the session store.
    case session(SessionUpdate)
    /// The session is over: exit with this status.
    case finish(Int32)
    /// The code was a group room's (WireProtocol §2b): this session's
    /// pairing is done and it says nothing more; a `GroupSession` takes the
    /// room from here.
    case enterGroup(GroupEntry)
}

public enum SignalingCommand: Equatable, Sendable {
    case start
    case send(ClientMessage)
    /// `leave_room` then close; answer with `signalingLeft` when done.
    case leave
    case stop
}

/// A lifecycle change worth saving. Messages are never part of it.
public enum SessionUpdate: Equatable, Sendable {
    /// The creator's room exists and waits for a peer (`expires` as the server sent it).
    case pending(code: String, deviceID: String, expires: String?)
    /// The joiner's accept succeeded.
    case joined(code: String, roomID: String, deviceID: String, expires: String? = nil)
    /// The creator's room was accepted by the peer.
    case accepted(roomID: String)
    /// The user or the peer left the room, or it expired: nothing to resume.
    case closed
    /// The peer's certificate, pinned at the first connection or proven by the code since.
    case peerPinned(PinnedPeer)
    /// The code was a group room's: this member's seat (saved to come back to after a crash).
    case group(GroupEntry)
}

/// How a session starts.
public enum SessionMode: Equatable, Sendable {
    case create(expiresIn: Int)
    case join(code: String)
    /// A saved creator's session: keep waiting for the peer with the same code and device id.
    case resumeWaiting(code: String, deviceID: String, expires: String?)
    /// A saved accepted session: rejoin its room.
    case resumeRoom(roomID: String, deviceID: String)
    /// One pair of a group room (GroupSession): its signaling is the
    /// group's, addressed to one member; pairing and ICE servers are done.
    case groupPair(roomID: String, iceServers: [ICEServerEntry], typedSecret: Bool)

    /// The saved device id a resumed session keeps (the server knows the room by it).
    var resumedDeviceID: String? {
        switch self {
        case .resumeWaiting(_, let id, _), .resumeRoom(_, let id): return id
        case .create, .join, .groupPair: return nil
        }
    }
}

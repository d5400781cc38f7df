/// Saved sessions (Inviso's pending → accepted → closed): what the manager
/// reports so the CLI can save it, and how a saved session continues.
/// The manager itself never touches the store.
extension ChatManager {
    /// A lifecycle change worth saving. Messages are never part of it.
    public enum SessionUpdate: Equatable, Sendable {
        /// The creator's room exists and waits for a peer (`expires` as the server sent it).
        case pending(code: String, deviceID: String, expires: String?)
        /// The joiner's accept succeeded.
        case joined(code: String, roomID: String, deviceID: String)
        /// The creator's room was accepted by the peer.
        case accepted(roomID: String)
        /// The user or the peer left the room, or it expired: nothing to resume.
        case closed
    }

    /// Continues a saved session: a pending one waits again (long poll, with
    /// its old device id, as `create` does); an accepted one rejoins its room.
    func resume() {
        switch mode {
        case .resumeWaiting(let code, _, let expires):
            printer.emit(.code(code, expires: expires))
            showNotice()
            printer.emit(.waiting)
            state = .waitingForPeer(code: code)
            check(code: code, longPoll: true)
        case .resumeRoom(let roomID, _):
            showNotice()
            printer.emit(.progress("Rejoining the room…"))
            joinRoom(roomID)
        case .create, .join:
            break
        }
    }
}

extension ChatManager.Mode {
    /// The saved device id a resumed session keeps (the server knows the room by it).
    var resumedDeviceID: String? {
        switch self {
        case .resumeWaiting(_, let id, _), .resumeRoom(_, let id): return id
        case .create, .join: return nil
        }
    }
}

extension ClientError {
    /// Failures after which the room is gone for good, so a saved session is closed.
    var meansSessionEnded: Bool {
        switch self {
        case .codeExpired, .roomNotFound: return true
        default: return false
        }
    }
}

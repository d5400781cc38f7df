import Signaling
import Wire

/// The signaling room: joining it (again after every reconnect), the
/// peer's arrival, absence and departure, and what the server relays.
extension ChatSession {
    /// How often `join_room` is asked again after `room_full`, for the
    /// first `roomFullPromptWindow` (25 frames at most), before backing off.
    static let roomFullPromptRetry: Duration = .milliseconds(200)
    static let roomFullPromptWindow: Duration = .seconds(5)

    func joinRoom(_ roomID: String) {
        state = .joiningRoom(roomID: roomID)
        fetchICEServers()
    }

    public func handleSignaling(_ event: SignalingEvent, now: Duration) {
        advance(now)
        switch event {
        case .open:
            if let roomID = currentRoomID { actions.append(.signaling(.send(.joinRoom(roomId: roomID)))) }
        case .lost(let error, _):
            if case .inRoom(let roomID, _) = state { state = .joiningRoom(roomID: roomID) }
            // Once per outage: the chat goes on directly; the prompt shows the rest.
            if !serverLost {
                serverLost = true
                let chatGoesOn = isConnected ? " The chat goes on directly; reconnecting to the server in the background." : " Reconnecting…"
                emit(.progress("Lost the server (\(error.message))." + chatGoesOn))
            }
        case .failed(let error):
            fail(error)
        case .message(let message):
            handle(message)
        }
        afterInput()
    }

    func handle(_ message: ServerMessage) {
        switch message {
        case .roomJoined(let roomID, _, _, _):
            // `ready` here only announces the room_ready that follows.
            roomFullSince = nil
            // Only while joining: a join answered after we left (the user
            // quit while signaling was reconnecting) must not undo the leave.
            guard currentRoomID == roomID else { return }
            state = .inRoom(roomID: roomID, ready: false)
            if serverLost {
                serverLost = false
                emit(.progress("Back in touch with the server."))
            }
        case .roomReady(let roomID, _, let isInitiator):
            guard currentRoomID != nil else { return }
            state = .inRoom(roomID: roomID, ready: true)
            let returned = presence == .away
            if presence != .present {
                presence = .present
                emit(returned ? .peerBack : .peerJoined)
            }
            roomReady(isInitiator: isInitiator, peerReturned: returned)
            heardFromPeer()
        case .roomFull:
            // Our old socket, silently dead after a network change, still
            // holds the seat. chatcli serve frees it once that socket misses
            // a ping (2 s): ask again every `roomFullPromptRetry` for a while,
            // so the chat is back right after; Inviso keeps a dead seat
            // longer, so then back off.
            if roomFullSince == nil { roomFullSince = now }
            guard let since = roomFullSince else { return }
            if now - since > .seconds(60) {
                fail(.roomFull)
                return
            }
            guard let roomID = currentRoomID else { return }
            let prompt = now - since < Self.roomFullPromptWindow
            schedule(.joinRoom(roomID: roomID), after: prompt ? Self.roomFullPromptRetry : retries.next(using: &rng))
        case .peerLeft:
            peerLeft()
        case .relayed(let type, _, _, let payload):
            guard currentRoomID != nil else { return }   // left, or the peer is gone for good
            relayed(type: type, payload: .object(payload))
            heardFromPeer()
        case .peerDisconnected:
            guard currentRoomID != nil else { return }
            presence = .away
            if case .inRoom(let roomID, _) = state { state = .inRoom(roomID: roomID, ready: false) }
            armSilence()
            emit(.peerAway)
        case .error(let code):
            if code == .roomNotFound {
                fail(.roomNotFound)
            } else {
                emit(.progress("The server reported: \(code.rawValue)"))
            }
        default:
            break
        }
    }

    /// How long the peer's last acknowledgements may trail the server's word
    /// that it left (`peer_left` crosses the server while they cross the
    /// peer connection, and a browser's SCTP delays its SACKs up to 200 ms).
    static let peerLeftGrace: Duration = .seconds(1)

    /// The peer left: through signaling (`peer_left`), or by closing the
    /// channel (SCTP SHUTDOWN / close_notify), which arrives even while
    /// signaling is reconnecting. Reported once, at once; what it never got
    /// is counted once the connection closes, everything is acknowledged,
    /// or `peerLeftGrace` passed, whichever comes first.
    func peerLeft() {
        switch state {
        case .joiningRoom, .inRoom: break
        default: return
        }
        if presence != .left {
            presence = .left
            emit(.peerLeft)
            if !outbox.isEmpty, let peer, peer.isOpen {
                timers.set(.peerLeftGrace, at: now + Self.peerLeftGrace)
                return
            }
        }
        timers.cancel(.peerLeftGrace)
        // Nothing more can move: transfers under way failed (and leave the prompt).
        transfersPeerLeft()
        closeSession()
        let lost = outbox.undelivered + outbox.missedSinceBehind
        if lost > 0 { emit(.undelivered(lost)) }
        guard options.staysAfterPeerLeft, !inputEnded else {
            // Exit 0 only if everything typed reached the peer.
            leave(status: outbox.isEmpty ? 0 : 1, reportUndelivered: false)   // said just above
            return
        }
        // The user leaves when ready (what they were typing stays on screen).
        state = .peerGone
        timers.cancel(.restart)
        closePeer()
        actions.append(.signaling(.leave))
    }
}

import PeerConnection
import Runtime

/// Staying connected (issue: reconnect): when the P2P path stops answering,
/// the side that made the offer restarts ICE through signaling (RFC 8445 §9)
/// and keeps trying, with backoff, while the peer is in the room. DTLS and
/// SCTP carry on across the restart, so what was typed meanwhile is
/// delivered once the path is back, in order and exactly once (SCTP's
/// retransmissions), with no user action.
extension ChatManager {
    /// The path went down (or a restart found none): say so once, and
    /// restart if we are the offerer; the answerer waits for the offer.
    func pathLost(_ reason: String) {
        if pathDownSince == nil {
            pathDownSince = loop.now
            printer.emit(.progress("The connection to your peer stopped working (\(reason)); reconnecting…"))
        }
        guard let peer, peer.connection.isOfferer else { return }
        scheduleRestart()
    }

    func scheduleRestart() {
        guard restartTimer == nil else { return }
        // The first attempt goes at once; later ones back off.
        let first = restartBackoff.attempt == 0
        let delay = restartBackoff.next(using: &rng)
        restartTimer = loop.schedule(after: first ? .zero : delay) { [weak self] in
            self?.restartTimer = nil
            self?.restartNow()
        }
    }

    /// Sends a restart offer if the signaling room is up; otherwise the next
    /// `room_ready` calls this again.
    func restartNow() {
        guard let peer, peer.connection.canRestartICE, peer.connection.isPathDown else { return }
        guard case .inRoom(_, true) = state else { return }
        sendRestartOffer()
    }

    func sendRestartOffer() {
        guard let peer else { return }
        signaling.send(.offer(sdp: peer.connection.restartICE()))
        peer.pump()
    }

    func pathRestored(_ info: ConnectionInfo) {
        restartTimer?.cancel()
        restartTimer = nil
        restartBackoff.reset()
        let outage = pathDownSince.map { loop.now - $0 }
        pathDownSince = nil
        printer.emit(.reconnected(info, after: outage))
        flushOutbox()
    }
}

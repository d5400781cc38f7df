import PeerConnection

/// Staying connected: when the P2P path stops answering, or the network
/// changed under it, the side that made the offer restarts ICE through
/// signaling (RFC 8445 §9) and keeps trying, with backoff, while the peer is
/// in the room. DTLS and SCTP carry on across the restart, so what was typed
/// meanwhile is delivered once the path is back, in order, exactly once.
extension ChatSession {
    /// The path went down (or a restart found none): say so once, and
    /// restart if we are the offerer; the answerer waits for the offer.
    func pathLost(_ loss: PathLoss) {
        pathDown(because: loss.description)
    }

    private func pathDown(because reason: String) {
        if pathDownSince == nil {
            pathDownSince = now
            emit(.progress("The connection to your peer stopped working (\(reason)); reconnecting…"))
        }
        guard let peer, peer.isOfferer || isRoomInitiator else { return }
        scheduleRestart()
    }

    /// The network changed under the chat (ours or the peer's): the old path
    /// is presumed gone, so the offerer restarts at once, even while a
    /// backed-off retry was waiting.
    func networkChanged(_ change: NetworkChange) {
        timers.cancel(.restart)
        restartBackoff.reset()
        pathDown(because: change.description)
    }

    func scheduleRestart() {
        guard !timers.isSet(.restart) else { return }
        // The first attempt goes at once; later ones back off.
        let first = restartBackoff.attempt == 0
        let delay = restartBackoff.next(using: &rng)
        timers.set(.restart, at: now + (first ? .zero : delay))
    }

    /// Sends a restart offer if the signaling room is up; otherwise the next
    /// `room_ready` does.
    func restartNow() {
        guard let peer, peer.isPathDown else { return }
        guard case .inRoom(_, true) = state else { return }
        if peer.isOfferer, peer.canRestartICE {
            sendRestartOffer()
        } else if isRoomInitiator {
            // We answered this connection, so we cannot restart its ICE: the
            // initiator starts a fresh one (the peer may be a new process).
            actions.append(.shutDownPeer(peer))
            connectionEnded()
            leg = .idle
            requestPeer(isOfferer: true)
        }
    }

    func sendRestartOffer() {
        guard let peer else { return }
        actions.append(.signaling(.send(.offer(sdp: peer.restartICE()))))
        offerSentAt = now
    }

    func pathRestored(_ info: ConnectionInfo) {
        timers.cancel(.restart)
        restartBackoff.reset()
        let outage = pathDownSince.map { now - $0 }
        pathDownSince = nil
        guard let auth = codeAuth.settled else { return }   // still at the PAKE or the trust gate
        emit(.reconnected(info, after: outage, auth: auth))
        flushOutbox()
    }
}

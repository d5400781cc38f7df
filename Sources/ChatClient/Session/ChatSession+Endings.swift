/// The ways a session ends: the user leaves (after delivering, or at
/// once), the peer leaves, a signal, a failure. Every way ends in
/// `finish`, which emits `closed` and the exit status exactly once.
extension ChatSession {
    /// Leaves once everything typed is acknowledged (end of input, `/quit`).
    func finishWhenDelivered() {
        guard inputEnded, outbox.isEmpty else { return }
        switch state {
        case .inRoom, .joiningRoom:
            guard let peer, peer.isOpen, peer.isFullyAcknowledged else { return }
            leave(status: 0)
        default:
            return
        }
    }

    /// `reportUndelivered`: false when the sentence just said already tells that nothing was sent.
    func leave(status: Int32, reportUndelivered: Bool = true) {
        switch state {
        case .finished, .leaving: return
        case .joiningRoom, .inRoom:
            if status == 0 && presence != .left && options.announcesLeave { emit(.progress("You left the chat.")) }
            let lost = outbox.undelivered + outbox.missedSinceBehind
            if lost > 0 && reportUndelivered { emit(.undelivered(lost)) }
            state = .leaving(status: status)
            closeSession()
            // P2P first, then the room, so the peer sees no renegotiation mid-teardown.
            closePeer()
            actions.append(.signaling(.leave))
        default:
            finish(status)
        }
    }

    /// The signaling leave is done (`left_room`, or its deadline).
    public func signalingLeft(now: Duration) {
        advance(now)
        if case .leaving(let status) = state { finish(status) }
    }

    func fail(_ error: ClientError) {
        if state == .finished { return }
        emit(.error(error))
        if error.meansSessionEnded { closeSession() }
        finish(1)
    }

    func closeSession() {
        guard !sessionClosed else { return }
        sessionClosed = true
        actions.append(.session(.closed))
    }

    func finish(_ status: Int32) {
        if state == .finished { return }
        state = .finished
        timers.cancelAll()
        if let peer { actions.append(.shutDownPeer(peer)) }
        leg = .idle
        actions.append(.closeHTTP)
        actions.append(.signaling(.stop))
        emit(.closed)
        actions.append(.finish(status))
    }

    func fire(_ timer: SessionTimer) {
        switch timer {
        case .retry: runRetry()
        case .restart: restartNow()
        case .holdRelease: releaseHeld()
        case .forcedExit: finish(forcedExitStatus)
        case .pakeDeadline: pakeDeadlinePassed()
        case .peerSilence: peerSilenceDue()
        case .peerLeftGrace: peerLeft()
        }
    }
}

extension ClientError {
    /// Failures after which the room is gone for good, so a saved session is closed.
    var meansSessionEnded: Bool {
        switch self {
        case .codeExpired, .roomNotFound, .pakeFailed: return true
        default: return false
        }
    }
}

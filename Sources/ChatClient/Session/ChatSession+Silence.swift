/// A peer that stops answering while the connection is being set up (its
/// process frozen by SIGSTOP, a laptop lid closed): its signaling socket
/// stays open, so the server never reports it gone, and without this the
/// other side would show "connecting" with nothing else to go on. After
/// `silenceNotice` without a word from the peer, say so (`peer_not_answering`,
/// with the deadline); at `silenceLimit` give up with one sentence. Any
/// word from the peer (an offer, an answer, a candidate, the channel
/// opening) clears it.
extension ChatSession {
    static let silenceNotice: Duration = .seconds(4)
    static let silenceLimit: Duration = .seconds(120)

    /// The connection is still being set up with a peer that is in the room.
    var awaitsPeerConnection: Bool {
        guard case .inRoom(_, true) = state, presence == .present else { return false }
        return !(peer?.isOpen ?? false)
    }

    /// Something came from the peer: it is answering.
    func heardFromPeer() {
        lastHeardFromPeer = now
        notAnsweringUntil = nil
        armSilence()
    }

    /// (Re)sets the silence timer for the current state: due `silenceNotice`
    /// after the last word from the peer, then at the deadline.
    func armSilence() {
        guard awaitsPeerConnection, let last = lastHeardFromPeer else {
            timers.cancel(.peerSilence)
            notAnsweringUntil = nil
            return
        }
        timers.set(.peerSilence, at: notAnsweringUntil ?? last + Self.silenceNotice)
    }

    func peerSilenceDue() {
        guard awaitsPeerConnection, let last = lastHeardFromPeer else {
            notAnsweringUntil = nil
            return
        }
        if notAnsweringUntil == nil {
            let deadline = last + Self.silenceLimit
            notAnsweringUntil = deadline
            emit(.peerNotAnswering(waitSeconds: Int((deadline - now).components.seconds)))
            timers.set(.peerSilence, at: deadline)
            return
        }
        fail(.peerNotAnswering(seconds: Int(Self.silenceLimit.components.seconds)))
    }
}

import PAKE
import PeerConnection
import Signaling
import Wire

/// The peer-to-peer half: WebRTC negotiation over the signaling relay (the
/// initiator offers; candidates trickle both ways and are held until the
/// remote description exists), then the chat channel and delivery.
extension ChatSession {
    /// `peerReturned`: the peer was away (`peer_disconnected`) and is back.
    func roomReady(isInitiator: Bool, peerReturned: Bool) {
        // A peer that comes back may be a new process (`chatcli resume`) with no
        // connection at all: the initiator that stayed renegotiates. From the
        // offerer of a live DTLS session that is an ICE restart (nothing in
        // flight is lost); a new process answers with another certificate and
        // then gets a fresh connection (see `relayed`, webrtc_answer).
        // A path that is down may lead to a new process we were never told
        // about (its crash was lost in a server restart): renegotiate too.
        isRoomInitiator = isInitiator
        let renegotiate = isInitiator && (peerReturned || (peer?.isPathDown ?? false))
        if let peer, peer.isOpen {
            if peer.isOfferer, peer.canRestartICE, renegotiate || peer.isPathDown {
                sendRestartOffer()
                return
            }
            if !renegotiate { return }   // the channel survived a signaling reconnect
            // Dropped without SHUTDOWN: if the peer's side of it is still
            // alive, a closed channel would read as the peer leaving; our new
            // offer (another certificate) replaces it there instead.
            actions.append(.shutDownPeer(peer))
            connectionEnded()
            leg = .idle
        }
        closePeer()
        guard isInitiator else { return }   // the answerer waits for the offer
        requestPeer(isOfferer: true)
    }

    /// `offer`: the peer's, for the answerer to answer.
    func requestPeer(isOfferer: Bool, offer: String? = nil) {
        peerRequests += 1
        // Candidates that came with no connection wait for this one; an answerer's come after its offer.
        var waiting: [String?] = []
        if case .none(let candidates) = leg, offer == nil { waiting = candidates }
        leg = .requested(request: peerRequests, offer: offer, candidates: waiting)
        actions.append(.createPeer(request: peerRequests, isOfferer: isOfferer, iceServers: iceServers))
    }

    /// The driver made the connection `createPeer` asked for (a stale
    /// request's, superseded meanwhile, is released).
    public func peerCreated(_ transport: any PeerTransport, request: Int, now: Duration) {
        advance(now)
        guard case .requested(request, let offer, let candidates) = leg, currentRoomID != nil else {
            actions.append(.shutDownPeer(transport))
            return
        }
        leg = .made(LivePeer(transport: transport))
        if transfers != nil { transport.routesChannels = true }
        if transport.isOfferer {
            actions.append(.signaling(.send(.offer(sdp: transport.createOffer()))))
            offerSentAt = now
        } else if let offer {
            answer(offer, on: transport)
        }
        for candidate in candidates { transport.addRemoteCandidate(candidate) }
        afterInput()
    }

    public func peerCreationFailed(_ error: ClientError, now: Duration) {
        advance(now)
        leg = .idle
        fail(error)
    }

    func relayed(type: String, payload: JSON) {
        switch type {
        case MessageType.webrtcOffer:
            guard let sdp = payload["sdp"]?.stringValue else { return }
            if offerCollides(sdp) { return }
            offerSentAt = nil
            if let peer, peer.canRestartICE, peer.isSameSession(sdp) {
                answer(sdp, on: peer)   // the offerer restarted ICE on the connection we have
                return
            }
            closePeer()
            requestPeer(isOfferer: false, offer: sdp)   // candidates so far belonged to the previous offer
        case MessageType.webrtcAnswer:
            guard let sdp = payload["sdp"]?.stringValue, let peer else { return }
            offerSentAt = nil
            do {
                try peer.acceptAnswer(sdp)
            } catch PeerConnectionError.certificateChanged {
                // The peer started over (a new process): a new connection.
                closePeer()
                roomReady(isInitiator: true, peerReturned: false)
            } catch {
                fail(.peerUnusable(error.description))
            }
        case MessageType.iceCandidate:
            guard let candidate = ICECandidatePayload(json: payload) else { return }
            switch leg {
            case .made(let live): live.transport.addRemoteCandidate(candidate.candidate)
            case .requested(let request, let offer, let candidates):
                leg = .requested(request: request, offer: offer, candidates: candidates + [candidate.candidate])
            case .none(let candidates): leg = .none(candidates: candidates + [candidate.candidate])
            }
        default:
            break   // key_exchange, chat_*: nothing we need
        }
    }

    /// Offer glare (both sides offered at once, e.g. a resumed initiator and
    /// a peer restarting ICE): as in WebRTC's perfect negotiation, the room's
    /// initiator is the impolite side and ignores an offer that collides with
    /// its own recent one; the other side drops its offer and answers. An
    /// unanswered offer stops counting after `glareWindow` (its answer may
    /// have been lost in a signaling outage).
    func offerCollides(_ sdp: String) -> Bool {
        guard isRoomInitiator, let sent = offerSentAt, now < sent + Self.glareWindow else { return false }
        return true
    }

    static let glareWindow: Duration = .seconds(10)

    private func answer(_ sdp: String, on peer: any PeerTransport) {
        do {
            actions.append(.signaling(.send(.answer(sdp: try peer.acceptOffer(sdp)))))
        } catch {
            fail(.peerUnusable(error.description))
        }
    }

    /// Closes the current connection gracefully (its unacknowledged
    /// messages go out again on the next one).
    func closePeer() {
        offerSentAt = nil
        guard let peer else { return }
        actions.append(.closePeer(peer, grace: closeGrace))
        connectionEnded()
        leg = .idle
    }

    /// How long a graceful close may wait for the peer's goodbye: after a
    /// signal, only what is left of `interruptLimit`, so a peer that is gone
    /// (killed, frozen) cannot hold the exit back.
    var closeGrace: Duration {
        guard let forced = timers.deadline(.forcedExit) else { return Self.closeGrace }
        return max(.zero, forced - now)
    }

    static let closeGrace: Duration = .seconds(2)

    func connectionEnded() {
        if let peer, !peerSpeaksDelivery { outbox.acknowledgeTransport(count: peer.chatMessagesAcknowledged) }
        outbox.connectionClosed()
        pendingHello = nil
        peerSpeaksDelivery = false
        timers.cancel(.holdRelease)
        codeConnectionEnded()
        transfersConnectionEnded()
    }

    // MARK: Peer events

    /// An event of the current connection (`handlePeerActivity` polls them;
    /// a connection already replaced is never polled again).
    func handlePeer(_ event: PeerConnectionEvent) {
        switch event {
        case .localCandidate(let candidate):
            actions.append(.signaling(.send(ICECandidatePayload(candidate: candidate).message)))
        case .endOfCandidates:
            actions.append(.signaling(.send(ICECandidatePayload(candidate: nil).message)))
        case .iceConnected(let pair):
            heardFromPeer()   // its connectivity checks answered
            emit(.ice(path: pair.path, local: pair.local.summary, remote: pair.remote.summary, rttMilliseconds: pair.rttMilliseconds))
        case .connected(let info):
            heardFromPeer()
            pendingHello = outbox.connectionOpened()
            inbox.connectionOpened()
            peerSpeaksDelivery = false
            codeConnectionOpened(info)
            flushOutbox()
        case .message(let text):
            guard codeAuth.allowsChat else { holdIncoming(text); break }
            show(inbox.receive(text, now: now))
            if let since = inbox.holdingSince { timers.set(.holdRelease, at: since + Inbox.holdLimit) }
        case .messageTooLarge:
            emit(.refused(code: "peer_message_too_large", message: ChatEvent.peerMessageTooLargeSentence(limit: Self.maxMessageBytes)))
        case .controlOpen:
            if codeAuth.allowsChat { emit(.controlReady) }   // else once the gate opens (`release`)
            startPAKEIfReady()
        case .controlMessage(let text):
            control(text)
        case .disconnected(let reason):
            pathLost(reason)
        case .reconnected(let info):
            pathRestored(info)
        case .networkChanged(let reason):
            networkChanged(reason)
        case .closed:
            peerLeft()
        case .failed(let error):
            fail(.peerConnectionFailed(error))
        }
        afterInput()
    }

    private func control(_ text: String) {
        guard text.utf8.count <= ControlMessage.maxBytes, let json = try? JSON.parse(text) else { return }
        if PAKEMessage.isPAKE(json) {
            pakeMessage(PAKEMessage(json: json))
            return
        }
        if let delivery = DeliveryMessage(json: json) {
            if case .hello = delivery { peerWentOnWithoutPAKE() }
            switch delivery {
            case .hello(let epoch, let next):
                peerSpeaksDelivery = true
                timers.cancel(.holdRelease)
                show(inbox.receiveHello(epoch: epoch, next: next))
            case .ack(let epoch, let seq):
                outbox.acknowledge(epoch: epoch, seq: seq)
                reportCatchUp()
            case .gap(let epoch, let before, let lines):
                if codeAuth.allowsChat { show(inbox.receiveGap(epoch: epoch, before: before, lines: lines)) }
            }
            return
        }
        guard let message = ControlMessage(json: json) else { return }   // unknown types are ignored
        if codeAuth.allowsChat { emit(.control(message)) } else { holdControl(message) }
    }

    func show(_ items: [Inbox.Item]) {
        for item in items {
            switch item {
            case .line(let text):
                counters.countReceived(text)
                emit(.message(text))
            case .gap(let lines):
                emit(.gap(lines: lines))
            }
        }
    }

    /// A peer that was behind (a group's limit) has room again: it gets lines again, and the user hears how many it missed.
    func reportCatchUp() {
        if let missed = outbox.catchUpIfRoom() { emit(.peerCaughtUp(missed: missed)) }
    }

    func releaseHeld() { show(inbox.releaseHeld()) }

    /// Sends what waits, if the channel is open.
    func flushOutbox() {
        guard let peer, peer.isOpen, codeAuth.allowsChat else { return }
        while let text = outbox.nextUnsent {
            do { try peer.send(text: text) } catch { break }
            outbox.sent()
        }
    }
}

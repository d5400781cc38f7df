import HTTP1
import ICE
import PeerConnection
import Runtime
import Signaling
import Wire

/// The peer-to-peer half of a chat: WebRTC negotiation over the signaling
/// relay (the initiator offers; candidates trickle both ways and are held
/// until the remote description exists), then the chat channel.
extension ChatManager {
    /// The largest chat message (PROTOCOL §4, `a=max-message-size`).
    public static let maxMessageBytes = 262_144

    /// A line from the user: sent when the channel is open, queued until then.
    public func send(line: String) {
        guard line.utf8.count <= Self.maxMessageBytes else {
            printer.emit(.notSent(code: "message_too_large",
                                  message: "A message of \(line.utf8.count) bytes was not sent: the limit is \(Self.maxMessageBytes) bytes."))
            return
        }
        outbox.append(line)
        flushOutbox()
    }

    func flushOutbox() {
        guard let peer, peer.connection.isOpen else { return }
        while let line = outbox.first {
            do {
                try peer.connection.send(text: line)
            } catch {
                break
            }
            outbox.removeFirst()
        }
        peer.pump()
        finishWhenDelivered()
    }

    /// At end of input, leaves once everything is acknowledged; checks again shortly.
    func finishWhenDelivered() {
        guard inputEnded else { return }
        finishTimer?.cancel()
        if let peer, peer.connection.isOpen, outbox.isEmpty, peer.connection.isFullyAcknowledged {
            leave(status: 0)
            return
        }
        finishTimer = loop.schedule(after: .milliseconds(20)) { [weak self] in self?.finishWhenDelivered() }
    }

    /// Asks for the ICE servers once the room is known, naming it so the
    /// TURN credentials are this member's (see `RoomAPI.iceServersRequest`).
    func fetchICEServers(_ then: @escaping () -> Void) {
        let fallback = "stun:\(http.authorityHostForICE):3478"
        let request = RoomAPI.iceServersRequest(authority: http.authority, roomID: currentRoomID, deviceID: deviceID)
        http.send(request, timeout: .seconds(5)) { [weak self] result in
            guard let self else { return }
            let response = try? result.get()
            var offered = response.map(RoomAPI.iceServers) ?? []
            // Without any STUN server, ask the signaling host's port 3478 (as against Inviso).
            let extraSTUN = self.extraICEServers.flatMap(\.urls).contains { ICEServerURL($0)?.isSTUN == true }
            if offered.isEmpty && !extraSTUN { offered = [ICEServerEntry(urls: [fallback])] }
            let servers = ResolvedICEServers(self.extraICEServers + offered)
            self.iceServers = servers.stun
            self.turnServers = servers.turn
            if self.relayOnly && servers.turn.isEmpty {
                self.fail(.peerConnectionFailed("--relay-only needs a TURN server, and \(RoomAPI.noTURNReason(response)) (see 'chatcli doctor')"))
                return
            }
            then()
        }
    }

    func roomReady(isInitiator: Bool) {
        // A peer that comes back may be a new process (`chatcli resume`) with no
        // connection at all: the initiator that stayed renegotiates. From the
        // offerer of a live DTLS session that is an ICE restart (nothing in
        // flight is lost); a new process answers with another certificate and
        // then gets a fresh connection (see `webrtcAnswer`).
        let renegotiate = peerRejoining && isInitiator
        peerRejoining = false
        if let peer, peer.connection.isOpen {
            if peer.connection.isOfferer, peer.connection.canRestartICE, renegotiate || peer.connection.isPathDown {
                sendRestartOffer()
                return
            }
            if !renegotiate { return }   // the channel survived a signaling reconnect
            // Dropped without SHUTDOWN: if the peer's side of it is still
            // alive, a closed channel would read as the peer leaving; our new
            // offer (another certificate) replaces it there instead.
            peer.shutDown()
            self.peer = nil
        }
        closePeer()
        guard isInitiator else { return }   // the answerer waits for the offer
        guard let link = makePeer(isOfferer: true) else { return }
        signaling.send(.offer(sdp: link.connection.createOffer()))
        link.pump()
    }

    func relayed(type: String, payload: JSON) {
        switch type {
        case MessageType.webrtcOffer:
            guard let sdp = payload["sdp"]?.stringValue else { return }
            if let peer, peer.connection.canRestartICE, peer.connection.isSameSession(sdp) {
                answerRestart(sdp, on: peer)
                return
            }
            closePeer()
            guard let link = makePeer(isOfferer: false) else { return }
            do {
                signaling.send(.answer(sdp: try link.connection.acceptOffer(sdp)))
            } catch {
                fail(.protocolViolation(error.description))
                return
            }
            link.pump()
        case MessageType.webrtcAnswer:
            guard let sdp = payload["sdp"]?.stringValue, let peer else { return }
            do {
                try peer.connection.acceptAnswer(sdp)
            } catch PeerConnectionError.certificateChanged {
                // The peer started over (a new process): a new connection.
                closePeer()
                roomReady(isInitiator: true)
                return
            } catch {
                fail(.protocolViolation(error.description))
                return
            }
            peer.pump()
        case MessageType.iceCandidate:
            guard let candidate = ICECandidatePayload(json: payload) else { return }
            if let peer {
                peer.connection.addRemoteCandidate(candidate.candidate)
                peer.pump()
            } else {
                earlyCandidates.append(candidate.candidate)
            }
        default:
            break   // key_exchange, chat_*: nothing we need
        }
    }

    /// The offerer restarted ICE on the connection we have.
    private func answerRestart(_ sdp: String, on peer: PeerLink) {
        do {
            signaling.send(.answer(sdp: try peer.connection.acceptOffer(sdp)))
        } catch {
            fail(.protocolViolation(error.description))
            return
        }
        peer.pump()
    }

    private func makePeer(isOfferer: Bool) -> PeerLink? {
        do {
            let link = try PeerLink(loop: loop, isOfferer: isOfferer, interfaces: NetworkInterfaces.addresses(), stunServers: iceServers,
                                    turnServers: turnServers, relayOnly: relayOnly, caFile: http.caFile, hardNATProbing: hardNATProbing)
            link.onEvent = { [weak self] event in self?.handle(event) }
            peer = link
            for candidate in earlyCandidates { link.connection.addRemoteCandidate(candidate) }
            earlyCandidates = []
            return link
        } catch {
            fail(error)
            return nil
        }
    }

    func closePeer() {
        peer?.close()
        closingPeer = peer   // finish() ends it (and its TURN allocations) if the loop stops first
        peer = nil
    }

    private func handle(_ event: PeerConnectionEvent) {
        switch event {
        case .localCandidate(let candidate):
            signaling.send(ICECandidatePayload(candidate: candidate).message)
        case .endOfCandidates:
            signaling.send(ICECandidatePayload(candidate: nil).message)
        case .iceConnected(let pair):
            printer.emit(.ice(path: pair.path, local: pair.local.summary, remote: pair.remote.summary, rttMilliseconds: pair.rttMilliseconds))
        case .connected(let info):
            printer.emit(.connected(info))
            flushOutbox()
        case .message(let text):
            printer.emit(.message(text))
        case .controlOpen:
            printer.emit(.controlReady)
        case .controlMessage(let text):
            if let message = ControlMessage(text: text) { printer.emit(.control(message)) }   // unknown types are ignored
        case .disconnected(let reason):
            pathLost(reason)
        case .reconnected(let info):
            pathRestored(info)
        case .networkChanged(let reason):
            networkChanged(reason)
        case .closed:
            peerLeft()
        case .failed(let reason):
            fail(.peerConnectionFailed(reason))
        }
    }
}

extension HTTPClient {
    /// The server's host as a STUN URL wants it.
    var authorityHostForICE: String { connectorHost }
}

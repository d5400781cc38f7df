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

    func fetchICEServers(_ then: @escaping () -> Void) {
        let fallback = "stun:\(http.authorityHostForICE):3478"
        http.send(RoomAPI.iceServersRequest(authority: http.authority), timeout: .seconds(5)) { [weak self] result in
            guard let self else { return }
            var urls = (try? result.get()).map(RoomAPI.iceServerURLs) ?? []
            if urls.isEmpty { urls = self.extraICEServers.isEmpty ? [fallback] : [] }
            self.iceServers = (self.extraICEServers + urls).compactMap(ICEServerURL.init).filter(\.isSTUN).compactMap {
                try? Resolver.resolve(host: $0.host, port: $0.port).first
            }
            then()
        }
    }

    func roomReady(isInitiator: Bool) {
        if let peer, peer.connection.isOpen { return }   // the channel survived a signaling reconnect
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

    private func makePeer(isOfferer: Bool) -> PeerLink? {
        do {
            let link = try PeerLink(loop: loop, isOfferer: isOfferer, interfaces: NetworkInterfaces.addresses(), stunServers: iceServers)
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
            printer.emit(.progress("The direct path stopped working (\(reason)); waiting for it to come back."))
        case .closed:
            if !peerGone { printer.emit(.progress("Your peer closed the chat channel.")) }
        case .failed(let reason):
            fail(.peerConnectionFailed(reason))
        }
    }
}

extension HTTPClient {
    /// The server's host as a STUN URL wants it.
    var authorityHostForICE: String { connectorHost }
}

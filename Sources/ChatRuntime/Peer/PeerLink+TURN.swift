import ChatClient
import PeerConnection
import STUN

extension PeerLink {
    /// TURN-over-TCP: the stream's bytes and its end go to the connection.
    func listenToTURNStreams() {
        streams.onData = { [weak self] server, bytes in
            guard let self else { return }
            self.connection.handleTURNStream(bytes, from: server, now: self.loop.now.duration)
            self.pump()
        }
        streams.onClose = { [weak self] server, reason in
            guard let self else { return }
            self.connection.turnStreamClosed(server, reason: reason, now: self.loop.now.duration)
            self.pump()
        }
    }
}

import STUN

/// Interpreting what the server sends: responses, Data indications and
/// ChannelData.
extension TURNClient {
    /// One whole datagram or stream frame from the server.
    func handleFrame(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        if ChannelData.startsChannelData(first) {
            guard let frame = ChannelData.decode(bytes), let peer = channels.peer(for: frame.number) else { return }
            channels.touch(peer)
            permissions.touch(peer)
            emit(.data(from: peer, frame.data))
            return
        }
        guard let message = try? STUNMessage.decode(bytes) else { return }
        switch message.type.messageClass {
        case .successResponse, .errorResponse:
            stun.handleInput(bytes, from: server, now: now)
            drainSTUNEvents()
        case .indication:
            handleIndication(message, bytes)
        case .request:
            // A TURN server never sends a client requests; ignore them.
            break
        }
    }

    /// A Data indication (§10.4): a peer's datagram relayed without a
    /// channel. Indications carry no integrity, as the RFC defines them;
    /// the server only relays from peers we gave permission to.
    private func handleIndication(_ message: STUNMessage, _ bytes: [UInt8]) {
        guard message.type.method == .data, allocation.state == .allocated,
              STUNMessage.verifyFingerprint(of: bytes) != .invalid,
              let peer = message.xorPeerAddress, let data = message.data
        else { return }
        permissions.touch(peer)
        emit(.data(from: peer, data))
    }
}

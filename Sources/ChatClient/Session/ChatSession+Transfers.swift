import FileTransfer
import PeerConnection

/// File transfers are part of the chat: they run on the session's
/// connection, behind the same trust gate as the chat (not one offer, name
/// or byte either way before the peer is proven or accepted), are cut off
/// with a connection and resumed on the next, and fail when the peer
/// leaves. Their updates leave with the session's other actions, in order.
extension ChatSession {
    /// What the user asks of file transfers.
    public enum TransferRequest {
        /// Offers `source` (now, or once connected).
        case send(TransferSource, skipped: [String])
        case accept(id: Int)
        case decline(id: Int, reason: String)
        /// Stops a transfer either way and tells the peer.
        case cancel(id: Int, reason: String)
    }

    /// Runs `transfers` on this chat's connections from now on.
    public func attach(_ transfers: FileTransfers) {
        self.transfers = transfers
        peer?.routesChannels = true
    }

    public func handle(_ request: TransferRequest, now: Duration) {
        advance(now)
        guard let transfers else { return }
        transfers.now = self.now
        switch request {
        case .send(let source, let skipped): transfers.send(source, skipped: skipped)
        case .accept(let id): transfers.accept(id)
        case .decline(let id, let reason): transfers.decline(id, reason: reason)
        case .cancel(let id, let reason): transfers.cancel(id, reason: reason, on: peer)
        }
        afterInput()
        takeTransferUpdates()
    }

    /// The connection's events and progress (datagrams arrived, acks among
    /// them, or its timers ran): everything it queued for the session is
    /// handled, delivery is checked and transfers move on. True if anything
    /// moved or is to be done, so the driver flushes the connection and
    /// calls again.
    @discardableResult
    public func handlePeerActivity(now: Duration) -> Bool {
        advance(now)
        var moved = false
        while let peer, let event = peer.pollEvent() {
            handlePeer(event)
            moved = true
        }
        afterInput()
        if transfersMoved { moved = true }
        transfersMoved = false
        return moved || !actions.isEmpty
    }

    /// One round of the transfers on the current connection, if the peer may be talked to.
    func serviceTransfers() {
        guard let transfers else { return }
        if let peer, peer.isOpen, codeAuth.allowsChat, transfers.service(on: peer, now: now) { transfersMoved = true }
        takeTransferUpdates()
    }

    /// The current connection ended: transfers on it are cut off (to
    /// resume on the next), unless the chat itself is ending.
    func transfersConnectionEnded() {
        guard let transfers else { return }
        switch state {
        case .joiningRoom, .inRoom:
            transfers.now = now
            transfers.connectionEnded()
            takeTransferUpdates()
        default:
            return
        }
    }

    /// The peer left the chat: what was under way failed with it.
    func transfersPeerLeft() {
        guard let transfers else { return }
        transfers.now = now
        transfers.peerLeft()
        takeTransferUpdates()
    }

    func takeTransferUpdates() {
        guard let transfers else { return }
        for update in transfers.takeUpdates() { actions.append(.transfer(update)) }
    }
}

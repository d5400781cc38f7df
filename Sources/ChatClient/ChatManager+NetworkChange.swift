import Runtime

/// Following the machine's network (a laptop switching Wi-Fi, an address
/// removed or added, the default route moving): instead of waiting seconds
/// for consent checks and the signaling heartbeat to notice, the chat
/// reacts as soon as rtnetlink reports the change (after a 300 ms quiet
/// period, since a switch is a burst of messages):
/// - the signaling socket is replaced at once if its local address is gone,
///   else probed (`SignalingClient.networkChanged`);
/// - the P2P sockets follow the addresses (`PeerLink.networkChanged`) and the
///   connection recovers the path by an ICE restart, which the offerer runs
///   and the answerer asks for (see `PeerConnection+NetworkChange`).
extension ChatManager {
    /// Without rtnetlink (forbidden, or not Linux) a change is still
    /// noticed, later, by consent checks and the heartbeat.
    func followNetworkChanges() {
        guard let watcher = try? NetworkWatcher(loop: loop) else { return }
        watcher.onChange = { [weak self] snapshot in
            guard let self else { return }
            self.signaling.networkChanged(addresses: snapshot.addresses)
            self.peer?.networkChanged(to: snapshot.addresses)
        }
        networkWatcher = watcher
    }

    /// The network changed under the chat (ours or the peer's): the old
    /// path is presumed gone, so the offerer restarts at once, even while a
    /// backed-off retry was waiting.
    func networkChanged(_ reason: String) {
        restartTimer?.cancel()
        restartTimer = nil
        restartBackoff.reset()
        pathLost(reason)
    }
}

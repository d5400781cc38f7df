import Runtime

/// What file transfers need of the manager: the time, and a way to push
/// queued data out to the network at once.
extension ChatManager {
    func pumpLinks() {
        for link in links.values { link.pump() }
    }
}

extension ChatManager {
    /// The loop the manager runs on, for commands that watch more descriptors.
    public var eventLoop: EventLoop { loop }
}

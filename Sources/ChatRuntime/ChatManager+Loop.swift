import ChatClient
import Runtime

extension ChatManager {
    /// The loop the manager runs on, for commands that watch more descriptors.
    public var eventLoop: EventLoop { loop }
}

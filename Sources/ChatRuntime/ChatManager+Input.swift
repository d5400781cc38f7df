import ChatClient
extension ChatManager {
    /// Typed text not yet acknowledged by the peer (``Outbox/bytes``) above
    /// which the input is held back: a script piping a large file into a
    /// chat whose peer is away, slow or never acknowledges keeps at most this
    /// much in memory, and the rest waits in its pipe or file.
    public static let inputHighWater = 4 << 20

    /// False while the unacknowledged text is at ``inputHighWater`` (in a
    /// group: while no member can take a line, `GroupSession.wantsInput`):
    /// the caller reads no more input until it is true again.
    public var wantsInput: Bool { group?.wantsInput ?? (session.outbox.bytes < Self.inputHighWater) }
}

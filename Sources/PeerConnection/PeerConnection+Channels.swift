import SCTP

/// Data channels besides `chat` and `ctl`: a file transfer opens its own
/// (FileTransfer.md). Their events are kept apart from the chat's
/// (`pollChannelEvent`), so the chat session never sees them, and their
/// messages are queued without a flush each: the caller sends a batch,
/// then calls `flushChannels()` once.
extension PeerConnection {
    /// Opens a reliable, ordered channel; its id.
    public func openChannel(label: String, protocolName: String = "") throws(PeerConnectionError) -> UInt16 {
        guard let sctp, !finished else { throw .notConnected }
        do {
            return try sctp.openChannel(label: label, protocolName: protocolName)
        } catch {
            throw .cannotOpenChannel(label: label, error)
        }
    }

    /// Queues a binary message (PPID 53); call `flushChannels()` after a batch.
    public func send(binary: [UInt8], on id: UInt16) throws(PeerConnectionError) {
        guard let sctp, !finished else { throw .notConnected }
        do {
            try sctp.send(binary: binary, on: id)
        } catch {
            throw .cannotSend(label: "channel \(id)", error)
        }
    }

    public func closeChannel(_ id: UInt16) {
        sctp?.closeChannel(id)
        flush()
    }

    /// Moves what was queued with `send(binary:on:)` towards the network.
    public func flushChannels() { flush() }

    /// The next event of a channel other than `chat` and `ctl` (and `.closed` when the association ends).
    public func pollChannelEvent() -> DataChannelEvent? {
        // A head index, not removeFirst: a burst of chunks is not O(n²).
        guard channelEventHead < channelEvents.count else { return nil }
        let event = channelEvents[channelEventHead]
        channelEventHead += 1
        if channelEventHead == channelEvents.count {
            channelEvents.removeAll(keepingCapacity: true)
            channelEventHead = 0
        }
        if let n = Self.messageBytes(event) { sctp?.association.release(bytes: n) }
        return event
    }

    /// A message waiting here counts against SCTP's receive window until it
    /// is polled: a caller that stops polling (its disk is behind) stops the
    /// peer instead of letting this queue grow.
    func queueChannelEvent(_ event: DataChannelEvent) {
        guard routesChannels else { return }
        channelEvents.append(event)
        if let n = Self.messageBytes(event) { sctp?.association.hold(bytes: n) }
    }

    static func messageBytes(_ event: DataChannelEvent) -> Int? {
        guard case .message(_, let message) = event else { return nil }
        switch message {
        case .binary(let bytes): return bytes.count
        case .text(let text): return text.utf8.count
        }
    }

    /// Bytes acknowledged by nobody yet: queued, or sent and not yet acknowledged.
    public var unacknowledgedBytes: Int { sctp?.unacknowledgedBytes ?? 0 }
}

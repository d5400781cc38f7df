import Runtime

/// Back-pressure: what a client that does not read may cost.
///
/// Each connection may have `outputLimitPerConnection` bytes of output
/// waiting (beyond what the kernel took), and all of them together
/// `outputBudget`. Past its limit (or with anything waiting once the budget
/// is used up), an HTTP connection is answered no further and read no
/// further until it has taken what is queued, and closed if it has not
/// within `backedUpTimeout`; a WebSocket is closed at once, since relayed
/// frames cannot wait for a member that does not read (the other member
/// hears `peer_disconnected`, as for any socket that closes). So the
/// output held for clients stays under `outputBudget` plus one answer per
/// connection (the largest, the page's script, is under 50 KB).
extension SignalingService {
    func isBackedUp(_ connection: ServerConnection) -> Bool {
        let waiting = connection.stream.bufferedAmount
        return waiting >= config.outputLimitPerConnection || (waiting > 0 && loop.bufferedOutputBytes >= config.outputBudget)
    }

    func pauseReading(_ connection: ServerConnection) {
        if connection.backedUpSince == nil { connection.backedUpSince = loop.now }
        connection.stream.isReadingPaused = true
    }

    /// Everything queued went to the kernel: read and answer again.
    func drained(_ connection: ServerConnection) {
        guard connection.backedUpSince != nil else { return }
        connection.backedUpSince = nil
        connection.stream.isReadingPaused = false
        if case .http = connection.mode { processRequests(on: connection) }
    }

    /// A WebSocket whose output is over the limit is not reading: close it.
    func closeIfBackedUp(_ connection: ServerConnection) {
        guard case .webSocket = connection.mode, connection.stream.isOpen, isBackedUp(connection) else { return }
        log.write("ws_backed_up", ["conn": "\(connection.id.rawValue)", "client": connection.client,
                                   "waiting": "\(connection.stream.bufferedAmount)"])
        connection.stream.abort()
    }

    /// From `tidy`: an HTTP connection backed up for `backedUpTimeout` is closed.
    func closeIfBackedUpTooLong(_ connection: ServerConnection, now: Instant) -> Bool {
        guard let since = connection.backedUpSince, now - since >= config.backedUpTimeout else { return false }
        log.write("http_backed_up", ["conn": "\(connection.id.rawValue)", "client": connection.client,
                                     "waiting": "\(connection.stream.bufferedAmount)"])
        connection.stream.abort()
        return true
    }
}

import STUN

/// The client's view of its permissions (RFC 8656 §9): one per peer IP
/// (ports do not matter), installed by CreatePermission or ChannelBind,
/// lasting 300 s on the server.
///
/// A permission is refreshed at 240 s if it was used since the last
/// install (data sent to or received from that IP), and dropped otherwise.
/// Data for a peer whose permission is not installed yet waits here.
struct PermissionTable: Sendable {
    static let lifetime: Duration = .seconds(300)
    static let refreshAfter: Duration = .seconds(240)
    /// Queued sends per IP while the permission is pending; beyond this
    /// data is dropped, as UDP would drop it.
    static let maxQueuedBytes = 256 * 1024

    struct Entry: Sendable {
        /// The address given when the permission was first wanted, for events.
        let peer: STUNAddress
        var installed = false
        var requestInFlight = false
        var used = false
        var refreshAt: Duration?
        var queue: [(peer: STUNAddress, bytes: [UInt8])] = []
        var queuedBytes = 0
    }

    private(set) var entries: [[UInt8]: Entry] = [:]

    func isInstalled(_ peer: STUNAddress) -> Bool {
        entries[peer.ip]?.installed ?? false
    }

    func contains(_ peer: STUNAddress) -> Bool {
        entries[peer.ip] != nil
    }

    /// Records the wish for a permission; returns true when a
    /// CreatePermission should be sent for it now.
    mutating func want(_ peer: STUNAddress) -> Bool {
        if entries[peer.ip] == nil { entries[peer.ip] = Entry(peer: peer) }
        guard let entry = entries[peer.ip], !entry.installed, !entry.requestInFlight else { return false }
        return true
    }

    mutating func markRequested(_ peer: STUNAddress) {
        entries[peer.ip]?.requestInFlight = true
        entries[peer.ip]?.refreshAt = nil
    }

    /// Queues data until the permission is installed. Returns false if it
    /// was dropped for lack of room.
    mutating func enqueue(_ bytes: [UInt8], to peer: STUNAddress) -> Bool {
        guard var entry = entries[peer.ip], entry.queuedBytes + bytes.count <= Self.maxQueuedBytes else { return false }
        entry.queue.append((peer, bytes))
        entry.queuedBytes += bytes.count
        entries[peer.ip] = entry
        return true
    }

    mutating func touch(_ peer: STUNAddress) {
        entries[peer.ip]?.used = true
    }

    /// The server installed or refreshed the permission (a CreatePermission
    /// or ChannelBind succeeded). Returns whether this is the first install
    /// and the queued data to send now.
    mutating func installed(_ peer: STUNAddress, now: Duration) -> (first: Bool, queue: [(peer: STUNAddress, bytes: [UInt8])]) {
        var entry = entries[peer.ip] ?? Entry(peer: peer)
        let first = !entry.installed
        let queue = entry.queue
        entry.installed = true
        entry.requestInFlight = false
        entry.used = false
        entry.refreshAt = now + Self.refreshAfter
        entry.queue = []
        entry.queuedBytes = 0
        entries[peer.ip] = entry
        return (first, queue)
    }

    /// A CreatePermission failed: forget the peer and its queued data.
    /// Returns the address to report, if the peer was known.
    mutating func failed(_ peer: STUNAddress) -> STUNAddress? {
        entries.removeValue(forKey: peer.ip)?.peer
    }

    /// Requests not yet sent (wanted before the allocation existed).
    var unrequested: [STUNAddress] {
        entries.values.filter { !$0.installed && !$0.requestInFlight }.map(\.peer)
    }

    var nextDeadline: Duration? {
        entries.values.compactMap(\.refreshAt).min()
    }

    /// Handles due refreshes: returns the peers to send CreatePermission
    /// for (those used since their last install); unused ones are dropped.
    mutating func due(now: Duration) -> [STUNAddress] {
        var refresh: [STUNAddress] = []
        for (ip, entry) in entries {
            guard let at = entry.refreshAt, at <= now else { continue }
            if entry.used {
                refresh.append(entry.peer)
                entries[ip]?.refreshAt = nil
            } else {
                entries[ip] = nil
            }
        }
        return refresh.sorted { $0.description < $1.description }
    }

    mutating func removeAll() {
        entries = [:]
    }
}

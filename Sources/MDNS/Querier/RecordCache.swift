/// Records heard on one interface, each until its TTL runs out (RFC 6762 §10).
struct RecordCache {
    struct Entry {
        var record: DNSRecord
        var received: Duration
        var expires: Duration
        /// A goodbye (TTL 0) was heard: gone for the user at once, kept 1 s (§10.1).
        var goodbye: Bool
    }

    private(set) var entries: [Entry] = []

    mutating func insert(_ record: DNSRecord, now: Duration) {
        if record.cacheFlush {
            // Cache flush (§10.2): other data for this name and type heard more
            // than a second ago is stale; it goes in one second.
            for index in entries.indices where entries[index].record.name == record.name
                && entries[index].record.type == record.type && entries[index].record.data != record.data
                && now - entries[index].received > .seconds(1) {
                entries[index].expires = min(entries[index].expires, now + .seconds(1))
            }
        }
        let goodbye = record.ttl == 0
        let expires = goodbye ? now + .seconds(1) : now + .seconds(Int64(record.ttl))
        let entry = Entry(record: record, received: now, expires: expires, goodbye: goodbye)
        if let index = entries.firstIndex(where: { $0.record.isSameRecord(as: record) }) {
            entries[index] = entry
        } else {
            entries.append(entry)
        }
    }

    mutating func expire(now: Duration) {
        entries.removeAll { $0.expires <= now }
    }

    var nextExpiry: Duration? { entries.map(\.expires).min() }

    /// Live records (not expired, no goodbye) with this name and type.
    func records(_ name: DNSName, _ type: DNSRecordType, now: Duration) -> [DNSRecord] {
        entries.filter { !$0.goodbye && $0.expires > now && $0.record.name == name && $0.record.type == type }.map(\.record)
    }

    /// Known answers for a question (§7.1): records with more than half their TTL left,
    /// sent with the TTL they have left.
    func knownAnswers(_ name: DNSName, _ type: DNSRecordType, now: Duration) -> [DNSRecord] {
        entries.compactMap { entry in
            guard !entry.goodbye, entry.record.name == name, entry.record.type == type else { return nil }
            let left = entry.expires - now
            guard left * 2 > .seconds(Int64(entry.record.ttl)) else { return nil }
            var record = entry.record
            record.ttl = UInt32(left.components.seconds)
            record.cacheFlush = false
            return record
        }
    }
}

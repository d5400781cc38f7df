/// What the responder does with what it hears.
extension MDNSResponder {
    /// One received datagram, from `address` (4 or 16 bytes) and `port`.
    /// Anything that is not a DNS message is ignored.
    public func handle(_ bytes: [UInt8], from address: [UInt8], port: UInt16, now: Duration) {
        guard phase != .stopped, let message = try? DNSMessage(decoding: bytes) else { return }
        // Messages with another opcode or a response code are silently ignored (§18.3, §18.11).
        guard message.opcode == 0, message.responseCode == 0 else { return }
        if message.isResponse {
            heardResponse(message, now: now)
        } else {
            heardQuery(message, from: address, port: port, now: now)
        }
    }

    // MARK: Conflicts

    private func heardResponse(_ message: DNSMessage, now: Duration) {
        let ours = records(ttlScale: 1)
        for record in message.answers + message.additionals where uniqueNames.contains(record.name) {
            if ours.contains(where: { $0.isSameRecord(as: record) }) { continue }
            if record.ttl == 0 { continue }  // someone's goodbye is no claim
            switch phase {
            case .probing:
                // While probing, any record with our name is a conflict (§8.1).
                rename(now: now)
                return
            case .announcing, .running:
                // The same name and type with other data: probe again (§9), which renames if it persists.
                if ours.contains(where: { $0.name == record.name && $0.type == record.type }) {
                    rename(now: now)
                    return
                }
            case .stopped:
                return
            }
        }
    }

    // MARK: Queries

    private func heardQuery(_ message: DNSMessage, from address: [UInt8], port: UInt16, now: Duration) {
        if case .probing = phase {
            tieBreak(message, now: now)
            return
        }
        let legacy = port != MDNS.port
        var answers: [DNSRecord] = []
        var unicast = legacy
        let ours = records(ttlScale: 1)
        for question in message.questions {
            let matching = ours.filter { question.matches($0) && !Self.isKnown($0, in: message.answers) }
            if !matching.isEmpty && question.unicastResponse { unicast = true }
            for record in matching where !answers.contains(record) { answers.append(record) }
        }
        guard !answers.isEmpty else { return }
        var additionals = additionalRecords(for: answers, from: ours)
        additionals.removeAll { record in answers.contains(record) || Self.isKnown(record, in: message.answers) }
        if legacy {
            // A plain DNS resolver asked (§6.7): same id, the question echoed, no cache-flush bit, TTL ≤ 10 s.
            let capped = { (r: DNSRecord) -> DNSRecord in
                var copy = r
                copy.cacheFlush = false
                copy.ttl = min(copy.ttl, 10)
                return copy
            }
            let reply = DNSMessage(id: message.id, flags: DNSMessage.responseFlags, questions: message.questions,
                                   answers: answers.map(capped), additionals: additionals.map(capped))
            transmits.append(MDNSTransmit(destination: .unicast(address: address, port: port), message: reply))
            return
        }
        if unicast {
            transmits.append(MDNSTransmit(destination: .unicast(address: address, port: port),
                                          message: response(answers, additionals: additionals)))
            return
        }
        // Shared answers wait 20–120 ms so many responders do not answer at once (§6).
        let shared = answers.contains { !$0.cacheFlush }
        let delay: Duration = shared ? .milliseconds(Int.random(in: 20...120, using: &rng)) : .zero
        var pendingResponse = pending ?? PendingResponse(due: now + delay, message: response([], additionals: []))
        pendingResponse.due = min(pendingResponse.due, now + delay)
        for record in answers where !pendingResponse.message.answers.contains(record) {
            pendingResponse.message.answers.append(record)
        }
        for record in additionals where !pendingResponse.message.additionals.contains(record) {
            pendingResponse.message.additionals.append(record)
        }
        pendingResponse.message.additionals.removeAll { pendingResponse.message.answers.contains($0) }
        pending = pendingResponse
        handleTimeout(now: now)
    }

    /// Known-answer suppression (§7.1): the querier already has this record
    /// with at least half its TTL left.
    static func isKnown(_ record: DNSRecord, in known: [DNSRecord]) -> Bool {
        known.contains { $0.isSameRecord(as: record) && $0.ttl >= record.ttl / 2 }
    }

    /// RFC 6763 §12: a PTR brings its SRV, TXT and addresses; an SRV its addresses.
    func additionalRecords(for answers: [DNSRecord], from ours: [DNSRecord]) -> [DNSRecord] {
        var extra: [DNSRecord] = []
        for answer in answers {
            switch answer.data {
            case .ptr(let target) where target == instanceFQDN:
                extra += ours.filter { $0.name == instanceFQDN } + addressRecords(ttl: MDNS.hostTTL)
            case .srv:
                extra += addressRecords(ttl: MDNS.hostTTL)
            default:
                break
            }
        }
        var unique: [DNSRecord] = []
        for record in extra where !unique.contains(record) { unique.append(record) }
        return unique
    }

    /// Simultaneous probes for the same name (§8.2): the records compared
    /// in order (class, type, rdata) decide; the lexicographically later
    /// set wins, and the loser waits a second and probes again.
    private func tieBreak(_ message: DNSMessage, now: Duration) {
        for name in uniqueNames {
            let theirs = message.authorities.filter { $0.name == name }
            guard !theirs.isEmpty else { continue }
            let mine = uniqueRecords.filter { $0.name == name }
            if Self.compare(mine, theirs) < 0 {
                restartProbing(now: now, delay: .seconds(1))
                return
            }
        }
    }

    static func compare(_ a: [DNSRecord], _ b: [DNSRecord]) -> Int {
        let key = { (r: DNSRecord) -> [UInt8] in
            let head: [UInt16] = [r.recordClass, r.type.rawValue]
            return head.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } + r.canonicalData
        }
        let left = a.map(key).sorted { $0.lexicographicallyPrecedes($1) }
        let right = b.map(key).sorted { $0.lexicographicallyPrecedes($1) }
        for (x, y) in zip(left, right) where x != y {
            return x.lexicographicallyPrecedes(y) ? -1 : 1
        }
        return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
    }
}

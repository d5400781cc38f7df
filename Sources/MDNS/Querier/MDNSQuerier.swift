/// The querier of RFC 6762 for DNS-SD browsing on one interface: it asks
/// for a service type's PTRs with continuous querying (§5.2: 1 s, 2 s,
/// 4 s… up to an hour) and known-answer suppression (§7.1), resolves each
/// instance's SRV, TXT and the host's A/AAAA, caches them for their TTL
/// (with the cache-flush bit and goodbyes, §10), and lists what it found.
///
/// Sans-IO: datagrams and `now` in; `pollTransmit()`, `pollTimeout()` and
/// `services(now:)` out.
public final class MDNSQuerier {
    var cache = RecordCache()
    var browsing: [DNSName] = []
    var nextBrowse: Duration?
    var browseInterval: Duration = .seconds(1)
    var nextResolve: Duration?
    var rng: any RandomNumberGenerator
    var transmits: [MDNSTransmit] = []

    static let maxInterval: Duration = .seconds(3600)
    static let resolveRetry: Duration = .seconds(1)

    public init(random: any RandomNumberGenerator = SystemRandomNumberGenerator()) {
        rng = random
    }

    /// Starts browsing for `serviceType` (`_chatcli._udp.local`); the first
    /// query goes after 20–120 ms (§5.2).
    public func browse(_ serviceType: DNSName, now: Duration) {
        guard !browsing.contains(serviceType) else { return }
        browsing.append(serviceType)
        browseInterval = .seconds(1)
        nextBrowse = now + .milliseconds(Int.random(in: 20...120, using: &rng))
    }

    public func pollTransmit() -> MDNSTransmit? { transmits.isEmpty ? nil : transmits.removeFirst() }

    public func pollTimeout() -> Duration? {
        [nextBrowse, nextResolve, cache.nextExpiry].compactMap { $0 }.min()
    }

    public func handleTimeout(now: Duration) {
        cache.expire(now: now)
        if let due = nextBrowse, due <= now {
            let questions = browsing.map { DNSQuestion(name: $0, type: .ptr) }
            let known = browsing.flatMap { cache.knownAnswers($0, .ptr, now: now) }
            transmits.append(MDNSTransmit(destination: .multicast, message: DNSMessage(questions: questions, answers: known)))
            nextBrowse = now + browseInterval
            browseInterval = min(browseInterval * 2, Self.maxInterval)
        }
        if let due = nextResolve, due <= now {
            nextResolve = nil
            resolveMissing(now: now)
        }
    }

    /// One received datagram; only responses matter to a querier.
    public func handle(_ bytes: [UInt8], from address: [UInt8], port: UInt16, now: Duration) {
        guard let message = try? DNSMessage(decoding: bytes), message.isResponse,
              message.opcode == 0, message.responseCode == 0 else { return }
        // Responses from a port other than 5353 are not mDNS answers (§6).
        guard port == MDNS.port else { return }
        for record in message.answers + message.additionals { cache.insert(record, now: now) }
        if nextResolve == nil { nextResolve = now + .milliseconds(Int.random(in: 20...60, using: &rng)) }
    }

    /// Asks once for what the listed instances still lack (SRV, TXT, addresses).
    func resolveMissing(now: Duration) {
        var questions: [DNSQuestion] = []
        for type in browsing {
            for ptr in cache.records(type, .ptr, now: now) {
                guard case .ptr(let instance) = ptr.data else { continue }
                let srv = cache.records(instance, .srv, now: now)
                if srv.isEmpty { questions.append(DNSQuestion(name: instance, type: .srv)) }
                if cache.records(instance, .txt, now: now).isEmpty { questions.append(DNSQuestion(name: instance, type: .txt)) }
                for record in srv {
                    guard case .srv(_, _, _, let host) = record.data else { continue }
                    if cache.records(host, .a, now: now).isEmpty && cache.records(host, .aaaa, now: now).isEmpty {
                        questions.append(DNSQuestion(name: host, type: .a))
                        questions.append(DNSQuestion(name: host, type: .aaaa))
                    }
                }
            }
        }
        var unique: [DNSQuestion] = []
        for question in questions where !unique.contains(question) { unique.append(question) }
        guard !unique.isEmpty else { return }
        transmits.append(MDNSTransmit(destination: .multicast, message: DNSMessage(questions: unique)))
        nextResolve = now + Self.resolveRetry
    }

    /// Every instance of the browsed types with an SRV record, as heard now.
    public func services(now: Duration) -> [ResolvedService] {
        var found: [ResolvedService] = []
        for type in browsing {
            for ptr in cache.records(type, .ptr, now: now) {
                guard case .ptr(let instance) = ptr.data, instance.parent == type,
                      let srv = cache.records(instance, .srv, now: now).first,
                      case .srv(_, _, let port, let host) = srv.data else { continue }
                var txt: [String: String] = [:]
                if let record = cache.records(instance, .txt, now: now).first, case .txt(let strings) = record.data {
                    txt = ServiceInstance.parseTXT(strings)
                }
                let addresses = (cache.records(host, .a, now: now) + cache.records(host, .aaaa, now: now)).compactMap { record -> [UInt8]? in
                    switch record.data {
                    case .a(let bytes), .aaaa(let bytes): return bytes
                    default: return nil
                    }
                }
                found.append(ResolvedService(name: instance, instance: instance.firstLabel, host: host, port: port,
                                             txt: txt, addresses: addresses))
            }
        }
        return found
    }
}

/// The responder of RFC 6762 for one DNS-SD service on one interface: it
/// probes for its names (§8.1), breaks ties with simultaneous probers
/// (§8.2), announces (§8.3), answers queries with known-answer suppression
/// (§7.1) and the DNS-SD additional records (RFC 6763 §12), renames itself
/// on a conflict (§9), and says goodbye with TTL 0 (§10.1).
///
/// Sans-IO: datagrams and `now` in, `pollTransmit()` and `pollTimeout()`
/// out. One instance per interface, made with that interface's addresses
/// only, so no answer carries an address that is not valid where it goes.
public final class MDNSResponder {
    public enum Event: Equatable, Sendable {
        /// Probing found no one else with these names; announced.
        case established(instance: String)
        /// Someone else holds the name: probing again under `instance`.
        case renamed(instance: String)
    }

    enum Phase: Equatable {
        case probing(sent: Int)
        case announcing(sent: Int)
        case running
        case stopped
    }

    public private(set) var service: ServiceInstance
    public private(set) var hostName: DNSName
    let baseInstance: String
    let baseHost: String
    let addresses: [[UInt8]]
    var rng: any RandomNumberGenerator
    var phase: Phase = .probing(sent: 0)
    var nextStep: Duration
    var pending: PendingResponse?
    var conflicts: [Duration] = []
    var transmits: [MDNSTransmit] = []
    var events: [Event] = []

    /// Probes 250 ms apart, three of them (§8.1).
    static let probeInterval: Duration = .milliseconds(250)
    static let probeCount = 3
    /// Two announcements, one second apart (§8.3).
    static let announceCount = 2

    public init(service: ServiceInstance, hostLabel: String, addresses: [[UInt8]], now: Duration,
                random: any RandomNumberGenerator = SystemRandomNumberGenerator()) {
        self.service = service
        self.baseInstance = service.instance
        self.baseHost = hostLabel
        self.hostName = DNSName(labels: [Array(hostLabel.utf8)] + MDNS.local.labels) ?? MDNS.local
        self.addresses = addresses
        self.rng = random
        // The first probe waits 0–250 ms, so hosts that start together do not collide (§8.1).
        nextStep = now + .milliseconds(Int.random(in: 0...250, using: &rng))
    }

    public var instanceName: String { service.instance }
    public var isEstablished: Bool { phase == .announcing(sent: Self.announceCount) || phase == .running || isAnnouncing }
    var isAnnouncing: Bool { if case .announcing = phase { return true } else { return false } }

    public func pollTransmit() -> MDNSTransmit? { transmits.isEmpty ? nil : transmits.removeFirst() }
    public func pollEvent() -> Event? { events.isEmpty ? nil : events.removeFirst() }

    public func pollTimeout() -> Duration? {
        let step: Duration? = (phase == .running || phase == .stopped) ? nil : nextStep
        return [step, pending?.due].compactMap { $0 }.min()
    }

    public func handleTimeout(now: Duration) {
        if let response = pending, response.due <= now {
            pending = nil
            transmits.append(MDNSTransmit(destination: .multicast, message: response.message))
        }
        guard nextStep <= now else { return }
        switch phase {
        case .probing(let sent) where sent < Self.probeCount:
            transmits.append(MDNSTransmit(destination: .multicast, message: probe()))
            phase = .probing(sent: sent + 1)
            nextStep = now + Self.probeInterval
        case .probing:
            phase = .announcing(sent: 0)
            events.append(.established(instance: service.instance))
            fallthrough
        case .announcing:
            guard case .announcing(let sent) = phase else { return }
            transmits.append(MDNSTransmit(destination: .multicast, message: response(records(ttlScale: 1), additionals: [])))
            phase = sent + 1 >= Self.announceCount ? .running : .announcing(sent: sent + 1)
            nextStep = now + .seconds(1)
        case .running, .stopped:
            break
        }
    }

    /// Goodbye: every record once more with TTL 0, so caches drop them at once.
    public func goodbye(now: Duration) {
        defer { phase = .stopped; pending = nil }
        switch phase {
        case .announcing, .running:
            transmits.append(MDNSTransmit(destination: .multicast, message: response(records(ttlScale: 0), additionals: [])))
        case .probing, .stopped:
            break
        }
    }

    // MARK: Records

    var instanceFQDN: DNSName { service.name ?? service.serviceType }

    /// Every record this responder is authoritative for. Unique records
    /// carry the cache-flush bit; the PTRs are shared (§10.2).
    func records(ttlScale: UInt32) -> [DNSRecord] {
        let other = MDNS.otherTTL * ttlScale
        let host = MDNS.hostTTL * ttlScale
        var list = [
            DNSRecord(name: service.serviceType, data: .ptr(instanceFQDN), ttl: other),
            DNSRecord(name: instanceFQDN, data: .srv(priority: 0, weight: 0, port: service.port, target: hostName),
                      ttl: host, cacheFlush: true),
            DNSRecord(name: instanceFQDN, data: .txt(service.txtStrings), ttl: other, cacheFlush: true),
            DNSRecord(name: ServiceInstance.enumerationName, data: .ptr(service.serviceType), ttl: other),
        ]
        list += addressRecords(ttl: host)
        return list
    }

    func addressRecords(ttl: UInt32) -> [DNSRecord] {
        addresses.map { bytes in
            DNSRecord(name: hostName, data: bytes.count == 4 ? .a(bytes) : .aaaa(bytes), ttl: ttl, cacheFlush: true)
        }
    }

    /// The unique records and their names: what probing claims.
    var uniqueRecords: [DNSRecord] { records(ttlScale: 1).filter(\.cacheFlush) }
    var uniqueNames: [DNSName] { [instanceFQDN, hostName] }

    func probe() -> DNSMessage {
        DNSMessage(questions: uniqueNames.map { DNSQuestion(name: $0, type: .any, unicastResponse: true) },
                   authorities: uniqueRecords)
    }

    func response(_ answers: [DNSRecord], additionals: [DNSRecord]) -> DNSMessage {
        DNSMessage(flags: DNSMessage.responseFlags, answers: answers, additionals: additionals)
    }

    // MARK: Renaming

    /// `name (2)`, `name (3)`… for the instance; `host-2`… for the host (§9).
    func rename(now: Duration) {
        conflicts = conflicts.filter { now - $0 < .seconds(10) } + [now]
        let attempt = conflicts.count + 1
        service.instance = "\(baseInstance) (\(attempt))"
        hostName = DNSName(labels: [Array("\(baseHost)-\(attempt)".utf8)] + MDNS.local.labels) ?? hostName
        events.append(.renamed(instance: service.instance))
        restartProbing(now: now, delay: conflicts.count >= 15 ? .seconds(5) : .zero)
    }

    func restartProbing(now: Duration, delay: Duration) {
        phase = .probing(sent: 0)
        pending = nil
        nextStep = now + delay + .milliseconds(Int.random(in: 0...250, using: &rng))
    }
}

/// A multicast answer waiting out its random delay, collecting more answers (§6).
struct PendingResponse {
    var due: Duration
    var message: DNSMessage
}

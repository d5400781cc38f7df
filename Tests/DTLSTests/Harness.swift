import TestSupport
import DTLS
#if canImport(Glibc)
import Glibc
#endif

typealias SplitMix64 = SeededRandom

/// Impairments applied to every datagram in one direction.
struct LinkProfile {
    var loss = 0.0
    var duplicate = 0.0
    var reorder = 0.0
    static let perfect = LinkProfile()
}

/// A client and a server wired back to back through an in-memory link.
final class EndpointPair {
    let clientCertificate: DTLSCertificate
    let serverCertificate: DTLSCertificate
    let client: DTLSEndpoint
    let server: DTLSEndpoint
    var clientEvents: [DTLSEvent] = []
    var serverEvents: [DTLSEvent] = []
    var toServer: [[UInt8]] = []
    var toClient: [[UInt8]] = []
    var largestDatagram = 0
    /// Applied to each datagram as it leaves an endpoint (return nil to drop).
    var tamper: ((_ fromClient: Bool, _ datagram: [UInt8]) -> [UInt8]?)?

    init(mtu: Int = 1200, clientExpects: Fingerprint? = nil, serverExpects: Fingerprint? = nil) throws {
        clientCertificate = try DTLSCertificate()
        serverCertificate = try DTLSCertificate()
        client = try DTLSEndpoint(role: .client, certificate: clientCertificate,
                                  remoteFingerprint: clientExpects ?? serverCertificate.fingerprint, mtu: mtu)
        server = try DTLSEndpoint(role: .server, certificate: serverCertificate,
                                  remoteFingerprint: serverExpects ?? clientCertificate.fingerprint, mtu: mtu)
    }

    var clientConnected: Bool { clientEvents.contains { if case .connected = $0 { true } else { false } } }
    var serverConnected: Bool { serverEvents.contains { if case .connected = $0 { true } else { false } } }
    var bothConnected: Bool { clientConnected && serverConnected }
    var anyFailed: Bool { client.state == .failed || server.state == .failed }

    func clientData() -> [[UInt8]] { clientEvents.compactMap { if case .data(let d) = $0 { d } else { nil } } }
    func serverData() -> [[UInt8]] { serverEvents.compactMap { if case .data(let d) = $0 { d } else { nil } } }

    /// Moves datagrams across the link once, applying `profile`; returns whether anything moved.
    @discardableResult
    func step(_ profile: LinkProfile = .perfect, rng: inout SplitMix64) -> Bool {
        var moved = false
        collect(from: client, into: &toServer, fromClient: true, profile, &rng)
        collect(from: server, into: &toClient, fromClient: false, profile, &rng)
        let forServer = toServer, forClient = toClient
        toServer = []; toClient = []
        for d in forServer { server.handleInput(datagram: d); moved = true }
        for d in forClient { client.handleInput(datagram: d); moved = true }
        while let e = client.pollEvent() { clientEvents.append(e); moved = true }
        while let e = server.pollEvent() { serverEvents.append(e); moved = true }
        return moved
    }

    /// Fires whichever retransmission timers have run out.
    func fireTimers() {
        if let t = client.pollTimeout(), t <= .zero { client.handleTimeout() }
        if let t = server.pollTimeout(), t <= .zero { server.handleTimeout() }
    }

    /// Runs a perfect link until nothing moves.
    func settle() {
        var rng = SplitMix64(seed: 1)
        while step(rng: &rng) {}
    }

    private func collect(from endpoint: DTLSEndpoint, into queue: inout [[UInt8]], fromClient: Bool,
                         _ profile: LinkProfile, _ rng: inout SplitMix64) {
        while var d = endpoint.pollTransmit() {
            largestDatagram = max(largestDatagram, d.count)
            if let tamper {
                guard let changed = tamper(fromClient, d) else { continue }
                d = changed
            }
            if Double.random(in: 0..<1, using: &rng) < profile.loss { continue }
            queue.append(d)
            if Double.random(in: 0..<1, using: &rng) < profile.duplicate { queue.append(d) }
            if queue.count > 1, Double.random(in: 0..<1, using: &rng) < profile.reorder {
                queue.swapAt(queue.count - 1, Int.random(in: 0..<(queue.count - 1), using: &rng))
            }
        }
    }
}

/// OpenSSL's DTLS timers read the real clock, so lossy-link tests must let real
/// time pass. This waits (at most `limit`) only when every pair is idle.
func waitForTimers(_ pairs: [EndpointPair], limit: Duration = .milliseconds(20)) {
    var shortest = limit
    for p in pairs {
        for t in [p.client.pollTimeout(), p.server.pollTimeout()].compactMap({ $0 }) where t < shortest { shortest = t }
    }
    guard shortest > .zero else { return }
    let micros = shortest.components.seconds * 1_000_000 + shortest.components.attoseconds / 1_000_000_000_000
    usleep(UInt32(max(1, micros)))
}

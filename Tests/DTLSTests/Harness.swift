import TestSupport
import DTLS

/// The two ends of the emulated link.
enum Side: Hashable, Sendable { case client, server }

/// A client and a server wired back to back through TestSupport's
/// `NetworkEmulator`, on its manual clock (`now`): retransmissions happen
/// when the simulated time says so, never the wall clock.
final class EndpointPair {
    let clientCertificate: DTLSCertificate
    let serverCertificate: DTLSCertificate
    let client: DTLSEndpoint
    let server: DTLSEndpoint
    let network: NetworkEmulator<Side>
    var clientEvents: [DTLSEvent] = []
    var serverEvents: [DTLSEvent] = []
    var largestDatagram = 0
    /// Applied to each datagram as it leaves an endpoint (return nil to drop).
    var tamper: ((_ fromClient: Bool, _ datagram: [UInt8]) -> [UInt8]?)?

    var now: Duration { network.now }

    init(mtu: Int = 1200, conditions: LinkConditions = .perfect, seed: UInt64 = 1,
         clientExpects: Fingerprint? = nil, serverExpects: Fingerprint? = nil) throws {
        network = NetworkEmulator(seed: seed, conditions: conditions, now: .seconds(1))
        clientCertificate = try DTLSCertificate()
        serverCertificate = try DTLSCertificate()
        client = try DTLSEndpoint(role: .client, certificate: clientCertificate,
                                  remoteFingerprint: clientExpects ?? serverCertificate.fingerprint, mtu: mtu, now: network.now)
        server = try DTLSEndpoint(role: .server, certificate: serverCertificate,
                                  remoteFingerprint: serverExpects ?? clientCertificate.fingerprint, mtu: mtu, now: network.now)
    }

    var clientConnected: Bool { clientEvents.contains { if case .connected = $0 { true } else { false } } }
    var serverConnected: Bool { serverEvents.contains { if case .connected = $0 { true } else { false } } }
    var bothConnected: Bool { clientConnected && serverConnected }
    var anyFailed: Bool { client.state == .failed || server.state == .failed }

    func clientData() -> [[UInt8]] { clientEvents.compactMap { if case .data(let d) = $0 { d } else { nil } } }
    func serverData() -> [[UInt8]] { serverEvents.compactMap { if case .data(let d) = $0 { d } else { nil } } }

    /// Delivers what has arrived by `now`, fires due timers and puts what the
    /// endpoints send on the wire.
    func step() {
        while let d = network.popDue() {
            (d.destination == .server ? server : client).handleInput(datagram: d.bytes, now: now)
        }
        for endpoint in [client, server] {
            if let due = endpoint.pollTimeout(), due <= now { endpoint.handleTimeout(now: now) }
        }
        collect()
    }

    /// The earliest time something happens: an arrival or a timer.
    var nextEvent: Duration? {
        [network.nextArrival, client.pollTimeout(), server.pollTimeout()].compactMap { $0 }.min()
    }

    /// Runs until nothing is in flight and no timer is pending, or `done`
    /// holds, or `limit` of simulated time has passed.
    func settle(limit: Duration = .seconds(120), until done: () -> Bool = { false }) {
        let end = now + limit
        step()
        while !done(), let next = nextEvent, next <= end {
            network.advance(to: next)
            step()
        }
    }

    func collect() {
        send(from: client, side: .client)
        send(from: server, side: .server)
        while let e = client.pollEvent() { clientEvents.append(e) }
        while let e = server.pollEvent() { serverEvents.append(e) }
    }

    private func send(from endpoint: DTLSEndpoint, side: Side) {
        while var d = endpoint.pollTransmit() {
            largestDatagram = max(largestDatagram, d.count)
            if let tamper {
                guard let changed = tamper(side == .client, d) else { continue }
                d = changed
            }
            network.send(d, from: side, to: side == .client ? .server : .client)
        }
    }
}

import TestSupport
@testable import SCTP

/// Impairments applied to each packet in each direction; the SCTP tests'
/// names for TestSupport's `LinkConditions`.
struct LinkProfile {
    var loss = 0.0
    var duplication = 0.0
    var delay: Duration = .milliseconds(1)
    /// Extra uniform random delay, which reorders packets.
    var jitter: Duration = .zero
    /// Bytes per second, 0 = unlimited (serialization delay per packet).
    var bandwidth = 0
    /// Bytes queued for the link beyond which packets are tail-dropped
    /// (with `bandwidth`).
    var queueLimit = Int.max

    static let clean = LinkProfile()
    static let hostile = LinkProfile(loss: 0.10, duplication: 0.05, delay: .milliseconds(50), jitter: .milliseconds(20))

    var conditions: LinkConditions {
        LinkConditions(delay: delay, jitter: jitter, loss: loss, duplication: duplication,
                       bandwidth: bandwidth > 0 ? bandwidth : nil, queueLimit: queueLimit)
    }
}

/// Two endpoints joined by TestSupport's `NetworkEmulator` (A is `false`,
/// B is `true`), driven by its manual clock. Works for anything with the
/// sans-IO shape of `SCTPAssociation`.
final class SimulatedPair<E: SansIOEndpoint> {
    let a: E
    let b: E
    let net: NetworkEmulator<Bool>
    var now: Duration {
        get { net.now }
        set { net.now = newValue }
    }
    var profile: LinkProfile {
        didSet { net.conditions = profile.conditions }
    }
    var packetsSent = 0
    /// Optional tap that may drop (return nil) or rewrite a packet.
    var filter: ((_ toB: Bool, _ bytes: [UInt8]) -> [UInt8]?)?

    init(_ a: E, _ b: E, profile: LinkProfile, seed: UInt64) {
        self.a = a
        self.b = b
        self.profile = profile
        net = NetworkEmulator(seed: seed, conditions: profile.conditions, now: .seconds(1000))
    }

    private func transmit(_ bytes: [UInt8], toB: Bool) {
        packetsSent += 1
        guard let bytes = filter.map({ $0(toB, bytes) }) ?? bytes else { return }
        net.send(bytes, from: !toB, to: toB)
    }

    /// Sends everything both endpoints want to send now.
    func flush() {
        var progress = true
        while progress {
            progress = false
            while let p = a.pollTransmit(now: now) { transmit(p, toB: true); progress = true }
            while let p = b.pollTransmit(now: now) { transmit(p, toB: false); progress = true }
        }
    }

    /// Advances to the next packet delivery or timer and processes it.
    /// Returns false when nothing at all is pending.
    @discardableResult
    func step() -> Bool {
        flush()
        let next = [net.nextArrival, a.pollTimeout(), b.pollTimeout()].compactMap { $0 }.min()
        guard let target = next else { return false }
        net.advance(to: target)
        if let datagram = net.popDue() {
            if datagram.destination { b.handleInput(packet: datagram.bytes, now: now) } else { a.handleInput(packet: datagram.bytes, now: now) }
        }
        if let t = a.pollTimeout(), t <= now { a.handleTimeout(now: now) }
        if let t = b.pollTimeout(), t <= now { b.handleTimeout(now: now) }
        flush()
        return true
    }

    /// Steps until `done` holds or simulated `limit` passes.
    func run(for limit: Duration, until done: () -> Bool) -> Bool {
        let end = now + limit
        while now < end {
            if done() { return true }
            if !step() { return done() }
        }
        return done()
    }

    var packetsInFlight: Int { net.inFlight }
}

protocol SansIOEndpoint: AnyObject {
    func handleInput(packet: [UInt8], now: Duration)
    func pollTransmit(now: Duration) -> [UInt8]?
    func pollTimeout() -> Duration?
    func handleTimeout(now: Duration)
}

extension SCTPAssociation: SansIOEndpoint {}

func makeAssociation(seed: UInt64, config: SCTPConfig = SCTPConfig()) -> SCTPAssociation {
    var rng = SeededRandom(seed: seed)
    return SCTPAssociation(config: config, using: &rng)
}

/// Collects every event of an association.
func drainEvents(_ a: SCTPAssociation, into list: inout [SCTPEvent]) {
    while let e = a.pollEvent() { list.append(e) }
}

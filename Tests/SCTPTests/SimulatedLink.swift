import TestSupport
@testable import SCTP

typealias SeededRNG = SeededRandom

/// Impairments applied to each packet in each direction.
struct LinkProfile {
    var loss = 0.0
    var duplication = 0.0
    var delay: Duration = .milliseconds(1)
    /// Extra uniform random delay, which reorders packets.
    var jitter: Duration = .zero
    /// Bytes per second, 0 = unlimited (serialization delay per packet).
    var bandwidth = 0

    static let clean = LinkProfile()
    static let hostile = LinkProfile(loss: 0.10, duplication: 0.05, delay: .milliseconds(50), jitter: .milliseconds(20))
}

/// Two endpoints joined by a simulated link, driven by a manual clock.
/// Works for anything with the sans-IO shape of `SCTPAssociation`.
final class SimulatedPair<E: SansIOEndpoint> {
    let a: E
    let b: E
    var now: Duration = .seconds(1000)
    var profile: LinkProfile
    var rng: SeededRNG
    /// Packets in flight: (delivery time, sequence for stable order, to B?, bytes).
    private var inFlight: [(at: Duration, seq: Int, toB: Bool, bytes: [UInt8])] = []
    private var seq = 0
    private var linkFreeAt: [Bool: Duration] = [true: .zero, false: .zero]
    var packetsSent = 0
    /// Optional tap that may drop (return nil) or rewrite a packet.
    var filter: ((_ toB: Bool, _ bytes: [UInt8]) -> [UInt8]?)?

    init(_ a: E, _ b: E, profile: LinkProfile, seed: UInt64) {
        self.a = a
        self.b = b
        self.profile = profile
        self.rng = SeededRNG(seed: seed)
    }

    private func chance(_ p: Double) -> Bool { p > 0 && Double(rng.next() % 1_000_000) / 1_000_000 < p }

    private func transmit(_ bytes: [UInt8], toB: Bool) {
        packetsSent += 1
        guard let bytes = filter.map({ $0(toB, bytes) }) ?? bytes else { return }
        var start = now
        if profile.bandwidth > 0 {
            start = max(now, linkFreeAt[toB] ?? .zero) + .nanoseconds(Int64(bytes.count) * 1_000_000_000 / Int64(profile.bandwidth))
            linkFreeAt[toB] = start
        }
        let copies = chance(profile.duplication) ? 2 : 1
        for _ in 0..<copies where !chance(profile.loss) {
            var at = start + profile.delay
            if profile.jitter > .zero {
                let ns = profile.jitter.components.seconds * 1_000_000_000 + profile.jitter.components.attoseconds / 1_000_000_000
                at += .nanoseconds(Int64(rng.next() % UInt64(max(1, ns))))
            }
            seq += 1
            inFlight.append((at, seq, toB, bytes))
        }
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
        var next: Duration?
        var nextIndex = -1
        for (i, p) in inFlight.enumerated() where next.map({ p.at < $0 || (p.at == $0 && p.seq < inFlight[nextIndex].seq) }) ?? true {
            next = p.at
            nextIndex = i
        }
        let ta = a.pollTimeout(), tb = b.pollTimeout()
        for t in [ta, tb] { if let t, next.map({ t < $0 }) ?? true { next = t; nextIndex = -1 } }
        guard let target = next else { return false }
        now = max(now, target)
        if nextIndex >= 0 {
            let p = inFlight.remove(at: nextIndex)
            if p.toB { b.handleInput(packet: p.bytes, now: now) } else { a.handleInput(packet: p.bytes, now: now) }
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

    var packetsInFlight: Int { inFlight.count }
}

protocol SansIOEndpoint: AnyObject {
    func handleInput(packet: [UInt8], now: Duration)
    func pollTransmit(now: Duration) -> [UInt8]?
    func pollTimeout() -> Duration?
    func handleTimeout(now: Duration)
}

extension SCTPAssociation: SansIOEndpoint {}

func makeAssociation(seed: UInt64, config: SCTPConfig = SCTPConfig()) -> SCTPAssociation {
    var rng = SeededRNG(seed: seed)
    return SCTPAssociation(config: config, using: &rng)
}

/// Collects every event of an association.
func drainEvents(_ a: SCTPAssociation, into list: inout [SCTPEvent]) {
    while let e = a.pollEvent() { list.append(e) }
}

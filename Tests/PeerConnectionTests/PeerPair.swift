import TestSupport
import Foundation
import ICE
import PeerConnection
import STUN

/// Two PeerConnections joined by a simulated link with loss, duplication,
/// reordering (jitter) and delay. Time is the real monotonic clock because
/// OpenSSL's DTLS timers read it; everything else takes `now` from here.
final class PeerPair {
    struct LinkModel {
        var loss = 0.0
        var duplication = 0.0
        var delay = 0.0          // seconds, one way
        var jitter = 0.0         // seconds, uniform extra delay (reorders)
    }

    struct InFlight {
        let due: Double
        let bytes: [UInt8]
        let from: STUNAddress
        let to: STUNAddress
        let toOfferer: Bool
    }

    let offerer: PeerConnection
    let answerer: PeerConnection
    let offererAddress: STUNAddress
    let answererAddress: STUNAddress
    let link: LinkModel
    /// Drops every datagram both ways while set (a cut path).
    var cut = false
    var rng: SplitMix
    var inFlight: [InFlight] = []
    var offererEvents: [PeerConnectionEvent] = []
    var answererEvents: [PeerConnectionEvent] = []
    var signaling: [(toOfferer: Bool, due: Double, action: (PeerConnection) -> Void)] = []
    static let start = Date()

    static var clock: Double { Date().timeIntervalSince(start) }
    static var now: Duration { .nanoseconds(Int64(clock * 1e9)) }

    init(index: Int, link: LinkModel, seed: UInt64, tamperOfferFingerprint: Bool = false,
         configure: (inout PeerConnectionConfig) -> Void = { _ in }) throws {
        self.link = link
        rng = SplitMix(seed: seed)
        let high = UInt8(index >> 8 & 0xFF), low = UInt8(index & 0xFF)
        offererAddress = STUNAddress(ip: [10, 1, high, low], port: 5000)!
        answererAddress = STUNAddress(ip: [10, 2, high, low], port: 6000)!
        var config = PeerConnectionConfig()
        config.ice.connectTimeout = .seconds(60)
        configure(&config)
        offerer = try PeerConnection(isOfferer: true, localAddresses: [offererAddress], config: config, now: Self.now, random: SplitMix(seed: seed &+ 1))
        answerer = try PeerConnection(isOfferer: false, localAddresses: [answererAddress], config: config, now: Self.now, random: SplitMix(seed: seed &+ 2))
        var offer = offerer.createOffer()
        if tamperOfferFingerprint {
            let intruder = try PeerConnection(isOfferer: true, localAddresses: [], now: Self.now)
            offer = offer.replacingOccurrences(of: offerer.localFingerprint.hexValue, with: intruder.localFingerprint.hexValue)
        }
        let answer = try answerer.acceptOffer(offer)
        try offerer.acceptAnswer(answer)
    }

    /// One round: deliver due datagrams, fire timers, move transmits and
    /// candidates. Returns the earliest time something is due.
    @discardableResult
    func step() -> Double {
        let t = Self.clock
        let now = Self.now
        var due: [InFlight] = []
        inFlight.removeAll { packet in
            if packet.due <= t { due.append(packet); return true }
            return false
        }
        for packet in due {
            (packet.toOfferer ? offerer : answerer).handleInput(packet.bytes, from: packet.from, to: packet.to, now: now)
        }
        for peer in [offerer, answerer] {
            if let deadline = peer.pollTimeout(), deadline <= now { peer.handleTimeout(now: now) }
        }
        pump(offerer, toOfferer: false, t: t)
        pump(answerer, toOfferer: true, t: t)
        var next = inFlight.map(\.due).min() ?? t + 0.05
        for peer in [offerer, answerer] {
            if let deadline = peer.pollTimeout() { next = min(next, Double(deadline.components.seconds) + Double(deadline.components.attoseconds) / 1e18) }
        }
        return next
    }

    private func pump(_ peer: PeerConnection, toOfferer: Bool, t: Double) {
        while let transmit = peer.pollTransmit() {
            if cut || Double.random(in: 0..<1, using: &rng) < link.loss { continue }
            let copies = Double.random(in: 0..<1, using: &rng) < link.duplication ? 2 : 1
            for _ in 0..<copies {
                let delay = link.delay + Double.random(in: 0...max(link.jitter, 0), using: &rng)
                inFlight.append(InFlight(due: t + delay, bytes: transmit.bytes, from: transmit.source, to: transmit.destination, toOfferer: toOfferer))
            }
        }
        let other = toOfferer ? offerer : answerer
        while let event = peer.pollEvent() {
            if toOfferer { answererEvents.append(event) } else { offererEvents.append(event) }
            switch event {
            case .localCandidate(let c): other.addRemoteCandidate(c)   // signaling is reliable
            case .endOfCandidates: other.addRemoteCandidate(nil)
            default: break
            }
        }
    }

    var bothConnected: Bool { offererEvents.contains(where: \.isConnected) && answererEvents.contains(where: \.isConnected) }
    var failure: String? {
        for e in offererEvents + answererEvents { if case .failed(let error) = e { return error.description } }
        return nil
    }
}

extension PeerConnectionEvent {
    var isConnected: Bool { if case .connected = self { return true } else { return false } }
    var text: String? { if case .message(let t) = self { return t } else { return nil } }
}

/// Runs pairs until `done` or the deadline; sleeps only while nothing is due.
func drive(_ pairs: [PeerPair], timeout: Double, until done: () -> Bool) {
    let end = PeerPair.clock + timeout
    while PeerPair.clock < end && !done() {
        var next = PeerPair.clock + 0.01
        for pair in pairs { next = min(next, pair.step()) }
        let wait = next - PeerPair.clock
        if wait > 0.0005 { usleep(UInt32(min(wait, 0.005) * 1e6)) }
    }
}

typealias SplitMix = SeededRandom

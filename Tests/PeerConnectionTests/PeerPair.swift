import Foundation
import TestSupport
import ICE
import PeerConnection
import STUN

/// Two PeerConnections joined by TestSupport's `NetworkEmulator` (loss,
/// duplication, reordering, delay and jitter), on its manual clock: every
/// timer, DTLS's included, runs on `now`, so simulated minutes take
/// milliseconds and no result depends on how busy the machine is.
final class PeerPair {
    /// One end of the link: whose socket, and its address.
    struct Port: Hashable, Sendable {
        var offerer: Bool
        var address: STUNAddress
    }

    let offerer: PeerConnection
    let answerer: PeerConnection
    let offererAddress: STUNAddress
    let answererAddress: STUNAddress
    let network: NetworkEmulator<Port>
    /// Drops every datagram both ways while set (a cut path).
    var cut = false
    var offererEvents: [PeerConnectionEvent] = []
    var answererEvents: [PeerConnectionEvent] = []

    var now: Duration { network.now }

    init(index: Int, link: LinkConditions, seed: UInt64, tamperOfferFingerprint: Bool = false,
         configure: (inout PeerConnectionConfig) -> Void = { _ in }) throws {
        network = NetworkEmulator(seed: seed, conditions: link, now: .seconds(1))
        let high = UInt8(index >> 8 & 0xFF), low = UInt8(index & 0xFF)
        offererAddress = STUNAddress(ip: [10, 1, high, low], port: 5000)!
        answererAddress = STUNAddress(ip: [10, 2, high, low], port: 6000)!
        var config = PeerConnectionConfig()
        config.ice.connectTimeout = .seconds(60)
        configure(&config)
        let now = network.now
        offerer = try PeerConnection(isOfferer: true, localAddresses: [offererAddress], config: config, now: now,
                                     random: SeededRandom(seed: seed &+ 1))
        answerer = try PeerConnection(isOfferer: false, localAddresses: [answererAddress], config: config, now: now,
                                      random: SeededRandom(seed: seed &+ 2))
        var offer = offerer.createOffer()
        if tamperOfferFingerprint {
            let intruder = try PeerConnection(isOfferer: true, localAddresses: [], now: now)
            offer = offer.replacingOccurrences(of: offerer.localFingerprint.hexValue, with: intruder.localFingerprint.hexValue)
        }
        let answer = try answerer.acceptOffer(offer)
        try offerer.acceptAnswer(answer)
    }

    /// Delivers what has arrived by `now`, fires due timers, and moves
    /// transmits onto the network and candidates over (reliable) signaling.
    func step() {
        while let d = network.popDue() {
            (d.destination.offerer ? offerer : answerer).handleInput(d.bytes, from: d.source.address, to: d.destination.address, now: now)
        }
        for peer in [offerer, answerer] {
            if let deadline = peer.pollTimeout(), deadline <= now { peer.handleTimeout(now: now) }
        }
        pump(offerer, isOfferer: true)
        pump(answerer, isOfferer: false)
    }

    /// The earliest time something happens: an arrival or a timer.
    var nextEvent: Duration? {
        [network.nextArrival, offerer.pollTimeout(), answerer.pollTimeout()].compactMap { $0 }.min()
    }

    private func pump(_ peer: PeerConnection, isOfferer: Bool) {
        while let transmit = peer.pollTransmit() {
            if cut { continue }
            network.send(transmit.bytes, from: Port(offerer: isOfferer, address: transmit.source),
                         to: Port(offerer: !isOfferer, address: transmit.destination))
        }
        let other = isOfferer ? answerer : offerer
        while let event = peer.pollEvent() {
            if isOfferer { offererEvents.append(event) } else { answererEvents.append(event) }
            switch event {
            case .localCandidate(let c): other.addRemoteCandidate(c)   // signaling is reliable
            case .endOfCandidates: other.addRemoteCandidate(nil)
            default: break
            }
        }
    }

    /// Runs until `done` holds or `seconds` of simulated time have passed.
    func run(for seconds: Double, until done: () -> Bool) {
        let end = now + .nanoseconds(Int64(seconds * 1e9))
        step()
        while !done() {
            guard let next = nextEvent, next <= end else { break }
            network.advance(to: next)
            step()
        }
        if !done() {
            network.advance(to: end)
            step()
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

/// Runs one pair until `done` or `timeout` seconds of simulated time.
func drive(_ pair: PeerPair, timeout: Double, until done: () -> Bool) {
    pair.run(for: timeout, until: done)
}

import ICE
import STUN
import TURN
import TestSupport

/// Two ICE agents on a simulated network, with a signaling channel that
/// carries credentials and trickled candidates as SDP strings (through
/// `sdpAttribute` and `init?(sdpAttribute:)`, as the real signaling does).
final class Harness {
    enum Signal {
        case credentials(ufrag: String, pwd: String)
        case candidate(String)
        case endOfCandidates
    }

    private struct PendingSignal {
        let at: Duration
        let sequence: Int
        let to: SimPeer
        let signal: Signal
    }

    static let stunServer = STUNAddress(ipv4: 198, 51, 100, 1, port: 3478)
    /// The same server's second port, which port probing asks too.
    static let stunServerNextPort = STUNAddress(ipv4: 198, 51, 100, 1, port: 3479)
    static let turnServer = STUNAddress(ipv4: 198, 51, 100, 2, port: 3478)

    let network: SimulatedNetwork
    private(set) var peers: [SimPeer] = []
    var signalingDelay: Duration = .milliseconds(40)
    /// Extra delay before credentials are delivered (trickle-before-answer).
    var credentialsDelay: Duration = .zero
    /// When false, candidates are not signalled at all (prflx tests).
    var signalCandidates: [String: Bool] = [:]
    private var signals: [PendingSignal] = []
    private var sequence = 0
    private var rng: SeededRandom
    /// Set if an agent asked to be woken at the same instant over and over.
    private(set) var busyLoop = false
    var config = ICEConfig()
    /// NATs created from now on pick random ports, as Linux does.
    var randomNATPorts = false
    /// Every datagram an agent sends, with when.
    private(set) var sent: [(at: Duration, from: String, transmit: ICETransmit)] = []

    let turn: SimTURNServer

    init(seed: UInt64, conditions: LinkConditions = .internet) {
        network = SimulatedNetwork(seed: seed, conditions: conditions)
        network.addSTUNServer(Self.stunServer)
        network.addSTUNServer(Self.stunServerNextPort)
        turn = network.addTURNServer(Self.turnServer)
        rng = SeededRandom(seed: seed ^ 0xA5A5_5A5A)
    }

    /// Places a peer behind a NAT of `kind` (its own private realm), or on
    /// the public internet for `.none`, or into an existing `realm`.
    @discardableResult
    func addPeer(
        _ name: String, role: ICERole, nat kind: NATKind = .none, realm existing: SimulatedNetwork.Realm? = nil,
        hostIP: [UInt8]? = nil, publicIP: [UInt8]? = nil, stun: Bool = true, extraInterfaces: [STUNAddress] = [],
        turn: [TURNTransport] = [], relayOnly: Bool = false
    ) -> SimPeer {
        let index = UInt8(peers.count + 1)
        let realm: SimulatedNetwork.Realm
        let ip: [UInt8]
        if let existing {
            realm = existing
            ip = hostIP ?? [192, 168, 1, 10 + index]
        } else if kind == .none {
            realm = network.publicRealm
            ip = hostIP ?? [203, 0, 113, 10 * index]
        } else {
            let nat = NAT(kind: kind, publicIP: publicIP ?? [203, 0, 113, index],
                          randomPorts: randomNATPorts ? SeededRandom(seed: rng.next()) : nil)
            realm = network.addRealm("lan-\(name)", nat: nat)
            ip = hostIP ?? [10, index, 0, 2]
        }
        let address = STUNAddress(ip: ip, port: 5000) ?? STUNAddress(ipv4: 0, 0, 0, 0, port: 0)
        let credentials = ICECredentials.random(using: &rng)
        var config = config
        config.relayOnly = relayOnly
        let agent = ICEAgent(
            role: role, localCredentials: credentials, tieBreaker: rng.next(), config: config,
            now: network.now, random: SeededRandom(seed: rng.next()))
        let peer = SimPeer(name: name, agent: agent, realm: realm, addresses: [address] + extraInterfaces)
        for local in peer.addresses {
            realm.endpoints[local] = .peer(peer)
            agent.addLocalInterface(local)
        }
        if stun { agent.addSTUNServer(Self.stunServer) }
        if stun && config.portProbing != nil { agent.addSTUNServer(Self.stunServerNextPort) }
        for transport in turn {
            agent.addTURNServer(Self.turnServer, transport: transport, username: SimTURNServer.username, password: SimTURNServer.password)
        }
        peers.append(peer)
        return peer
    }

    /// Sends each peer's credentials to the other, as offer and answer do.
    func exchangeCredentials() {
        guard peers.count == 2 else { return }
        for (from, to) in [(peers[0], peers[1]), (peers[1], peers[0])] {
            let credentials = from.agent.localCredentials
            post(.credentials(ufrag: credentials.ufrag, pwd: credentials.pwd), to: to, extraDelay: credentialsDelay)
        }
    }

    func other(than peer: SimPeer) -> SimPeer? {
        peers.first { $0 !== peer }
    }

    private func post(_ signal: Signal, to peer: SimPeer, extraDelay: Duration = .zero) {
        sequence += 1
        signals.append(PendingSignal(at: network.now + signalingDelay + extraDelay, sequence: sequence, to: peer, signal: signal))
        signals.sort { ($0.at, $0.sequence) < ($1.at, $1.sequence) }
    }

    private func drain(_ peer: SimPeer) {
        openProbeSockets(peer)
        while let transmit = peer.agent.pollTransmit() {
            sent.append((network.now, peer.name, transmit))
            switch transmit.route {
            case .datagram: network.send(transmit.bytes, from: transmit.source, to: transmit.destination, in: peer.realm)
            case .turnStream: network.sendStream(transmit.bytes, from: peer, to: transmit.destination)
            }
        }
        while let event = peer.agent.pollEvent() {
            peer.events.append(event)
            guard let other = other(than: peer) else { continue }
            switch event {
            case .localCandidate(let candidate):
                if signalCandidates[peer.name] ?? true { post(.candidate(candidate.sdpAttribute), to: other) }
            case .gatheringComplete:
                post(.endOfCandidates, to: other)
            case .stateChanged(let state):
                peer.states.append(state)
            default:
                break
            }
        }
    }

    /// What a runtime does for port probing: binds the sockets asked for
    /// (ports 20000 up) and unbinds the released ones.
    private func openProbeSockets(_ peer: SimPeer) {
        if let request = peer.agent.pollProbeSocketRequest() {
            let bases = (0..<request.count).compactMap { STUNAddress(ip: request.base.ip, port: UInt16(20000 + $0)) }
            for base in bases { peer.realm.endpoints[base] = .peer(peer) }
            peer.agent.addProbeBases(bases, now: network.now)
        }
        for base in peer.agent.pollReleasedProbeBases() {
            peer.realm.endpoints[base] = nil
            peer.releasedProbeBases += 1
        }
    }

    private func deliver(_ signal: Signal, to peer: SimPeer) {
        switch signal {
        case .credentials(let ufrag, let pwd):
            peer.agent.setRemoteCredentials(ufrag: ufrag, pwd: pwd)
        case .candidate(let text):
            if let candidate = ICECandidate(sdpAttribute: text) { peer.agent.addRemoteCandidate(candidate) }
        case .endOfCandidates:
            peer.agent.remoteEndOfCandidates()
        }
    }

    /// Runs the clock until `stop` holds or `limit` of simulated time has
    /// passed. Returns whether `stop` held.
    @discardableResult
    func run(for limit: Duration, until stop: () -> Bool) -> Bool {
        let end = network.now + limit
        var sameInstant = 0
        while true {
            for peer in peers { drain(peer) }
            if stop() { return true }
            var next = network.nextDelivery
            for peer in peers {
                if let t = peer.agent.pollTimeout() { next = min(next ?? t, t) }
            }
            if let t = signals.first?.at { next = min(next ?? t, t) }
            guard let due = next else { return false }
            let t = max(due, network.now)
            guard t <= end else {
                network.now = end
                return false
            }
            if t == network.now {
                sameInstant += 1
                if sameInstant > 10_000 {
                    busyLoop = true
                    return false
                }
            } else {
                sameInstant = 0
            }
            network.now = t
            network.deliverDue()
            while let signal = signals.first, signal.at <= t {
                signals.removeFirst()
                deliver(signal.signal, to: signal.to)
            }
            for peer in peers {
                if let timeout = peer.agent.pollTimeout(), timeout <= t { peer.agent.handleTimeout(now: t) }
            }
        }
    }

    /// Until both peers are connected (or completed) or one failed.
    @discardableResult
    func runUntilSettled(limit: Duration = .seconds(60)) -> Bool {
        run(for: limit) {
            peers.allSatisfy { $0.agent.state.isConnected } || peers.contains { $0.agent.state.isFailed }
        }
    }

    /// Until both peers have failed (or connected).
    @discardableResult
    func runUntilBothDone(limit: Duration = .seconds(60)) -> Bool {
        run(for: limit) {
            peers.allSatisfy { $0.agent.state.isConnected || $0.agent.state.isFailed }
        }
    }
}

extension Harness {
    /// The common setup: two peers, A controlling, each behind `a`/`b`.
    static func pair(
        _ a: NATKind, _ b: NATKind, seed: UInt64, conditions: LinkConditions = .internet,
        turn: [TURNTransport] = [], relayOnlyA: Bool = false
    ) -> Harness {
        let harness = Harness(seed: seed, conditions: conditions)
        harness.addPeer("A", role: .controlling, nat: a, turn: turn, relayOnly: relayOnlyA)
        harness.addPeer("B", role: .controlled, nat: b, turn: turn)
        harness.exchangeCredentials()
        return harness
    }

    var a: SimPeer { peers[0] }
    var b: SimPeer { peers[1] }
}

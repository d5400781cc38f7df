import ICE
import STUN
import TestSupport

extension LinkConditions {
    /// The default path between realms: 10 ms one way, nothing lost.
    static let internet = LinkConditions(delay: .milliseconds(10))
}

/// A deterministic in-memory UDP network with a manual clock: a public
/// realm, private realms behind NATs (TestSupport's RFC 4787 `NAT`),
/// endpoints and a STUN server. The internet's impairments are
/// TestSupport's `LinkConditions` (10 ms one way unless told otherwise).
/// Packets within a realm take `lanDelay`; packets that cross the public
/// internet take the `conditions` delay and suffer its loss, duplication
/// and jitter. NAT filtering is applied on arrival, so a packet that
/// reaches a NAT before the inside host has opened it is dropped, as in
/// life.
final class SimulatedNetwork {
    final class Realm {
        let name: String
        let nat: NAT?
        var endpoints: [STUNAddress: Endpoint] = [:]

        init(name: String, nat: NAT?) {
            self.name = name
            self.nat = nat
        }
    }

    /// Something bound to an address: an ICE peer, the STUN server, a TURN
    /// server or one of its relayed addresses.
    enum Endpoint {
        case peer(SimPeer)
        case stunServer
        case turnServer(SimTURNServer)
        case relayed(SimTURNServer)
    }

    /// TURN over TCP: a reliable stream between a peer and a TURN server
    /// that no NAT or UDP firewall stops.
    private enum Stream {
        case toServer(SimTURNServer, from: SimPeer)
        case toPeer(SimPeer, from: STUNAddress)
    }

    private struct InFlight {
        let at: Duration
        let sequence: Int
        let bytes: [UInt8]
        let source: STUNAddress
        let destination: STUNAddress
        /// The realm whose address space `destination` is in.
        let realm: Realm
        var stream: Stream?
    }

    var now: Duration = .zero
    var rng: SeededRandom
    var conditions: LinkConditions
    var lanDelay: Duration = .milliseconds(1)
    let publicRealm = Realm(name: "internet", nat: nil)
    private(set) var realms: [Realm] = []
    private var queue: [InFlight] = []
    private var sequence = 0
    /// Hosts whose traffic is dropped in both directions (a cut cable).
    var severed: Set<[UInt8]> = []
    let stunResponder = STUNResponder(software: "sim")
    private(set) var delivered = 0

    init(seed: UInt64, conditions: LinkConditions = .internet) {
        rng = SeededRandom(seed: seed)
        self.conditions = conditions
        realms = [publicRealm]
    }

    func addRealm(_ name: String, nat: NAT) -> Realm {
        let realm = Realm(name: name, nat: nat)
        realms.append(realm)
        return realm
    }

    /// A global IPv6 address of `peer` (already one of its interfaces):
    /// reachable from the whole internet, with no NAT in the way.
    func addIPv6(_ address: STUNAddress, of peer: SimPeer) {
        publicRealm.endpoints[address] = .peer(peer)
    }

    func addSTUNServer(_ address: STUNAddress) {
        publicRealm.endpoints[address] = .stunServer
    }

    /// A TURN server on the public internet, reachable over UDP and by
    /// stream (TCP).
    @discardableResult
    func addTURNServer(_ address: STUNAddress) -> SimTURNServer {
        let server = SimTURNServer(address: address)
        publicRealm.endpoints[address] = .turnServer(server)
        server.bind = { [unowned self] relayed in publicRealm.endpoints[relayed] = .relayed(server) }
        server.relayOut = { [unowned self] bytes, relayed, peer in send(bytes, from: relayed, to: peer, in: publicRealm) }
        server.output = { [unowned self] bytes, client in
            switch client {
            case .udp(let destination): send(bytes, from: address, to: destination, in: publicRealm)
            case .stream(let id):
                guard let peer = streamPeers[id] else { return }
                enqueue(InFlight(at: now + conditions.delay, sequence: 0, bytes: bytes, source: address, destination: address,
                                 realm: publicRealm, stream: .toPeer(peer, from: address)))
            }
        }
        return server
    }

    private var streamPeers: [ObjectIdentifier: SimPeer] = [:]

    /// Bytes a peer writes on its TCP stream to the TURN server at `server`.
    func sendStream(_ bytes: [UInt8], from peer: SimPeer, to server: STUNAddress) {
        guard case .turnServer(let turn)? = publicRealm.endpoints[server] else { return }
        streamPeers[ObjectIdentifier(peer)] = peer
        enqueue(InFlight(at: now + conditions.delay, sequence: 0, bytes: bytes, source: server, destination: server,
                         realm: publicRealm, stream: .toServer(turn, from: peer)))
    }

    var nextDelivery: Duration? { queue.first?.at }

    /// Routes a datagram sent by an endpoint of `realm`.
    func send(_ bytes: [UInt8], from source: STUNAddress, to destination: STUNAddress, in realm: Realm) {
        guard !severed.contains(source.ip) else { return }
        // IPv6 is not NATed: a global address is on the internet whatever
        // realm its host sits in (`addIPv6`); a link-local one reaches only
        // its own link, and nothing of another family.
        if source.family == .ipv6 {
            guard destination.family == .ipv6 else { return }
            if source.ip[0] == 0xFE && source.ip[1] & 0xC0 == 0x80 {
                guard realm.endpoints[destination] != nil else { return }
                schedule(bytes, from: source, to: destination, realm: realm, local: true)
            } else {
                schedule(bytes, from: source, to: destination, realm: publicRealm, local: false)
            }
            return
        }
        if realm.endpoints[destination] != nil || realm.nat == nil {
            schedule(bytes, from: source, to: destination, realm: realm, local: realm.nat != nil)
            return
        }
        // Leaves the private realm through its NAT.
        guard let nat = realm.nat, let publicSource = nat.outbound(from: source, to: destination) else { return }
        schedule(bytes, from: publicSource, to: destination, realm: publicRealm, local: false)
    }

    private func schedule(_ bytes: [UInt8], from source: STUNAddress, to destination: STUNAddress, realm: Realm, local: Bool) {
        if !local && rng.chance(conditions.loss) { return }
        let copies = !local && rng.chance(conditions.duplication) ? 2 : 1
        for _ in 0..<copies {
            var delay = local ? lanDelay : conditions.delay
            if !local, conditions.jitter > .zero {
                let ms = conditions.jitter.components.seconds * 1000 + conditions.jitter.components.attoseconds / 1_000_000_000_000_000
                delay += .milliseconds(Int64(rng.next() % UInt64(max(ms, 1))))
            }
            enqueue(InFlight(at: now + delay, sequence: 0, bytes: bytes, source: source, destination: destination, realm: realm))
        }
    }

    private func enqueue(_ packet: InFlight) {
        sequence += 1
        var packet = packet
        packet = InFlight(at: packet.at, sequence: sequence, bytes: packet.bytes, source: packet.source,
                          destination: packet.destination, realm: packet.realm, stream: packet.stream)
        let index = queue.firstIndex { ($0.at, $0.sequence) > (packet.at, packet.sequence) } ?? queue.count
        queue.insert(packet, at: index)
    }

    /// Delivers every packet due by `now`.
    func deliverDue() {
        while let packet = queue.first, packet.at <= now {
            queue.removeFirst()
            arrive(packet)
        }
    }

    private func arrive(_ packet: InFlight) {
        switch packet.stream {
        case .toServer(let turn, let peer)?: return turn.receive(packet.bytes, from: .stream(ObjectIdentifier(peer)))
        case .toPeer(let peer, let server)?:
            peer.agent.handleTURNStream(packet.bytes, from: server, now: now)
            return peer.collectRelayed()
        case nil: break
        }
        guard !severed.contains(packet.source.ip), !severed.contains(packet.destination.ip) else { return }
        if let endpoint = packet.realm.endpoints[packet.destination] {
            deliver(packet.bytes, from: packet.source, to: packet.destination, endpoint: endpoint, realm: packet.realm)
            return
        }
        // Addressed to a NAT's public side: filter, then into its realm.
        guard packet.realm === publicRealm,
              let inside = realms.first(where: { $0.nat?.publicIP == packet.destination.ip }),
              let internalAddress = inside.nat?.inbound(to: packet.destination.port, from: packet.source),
              let endpoint = inside.endpoints[internalAddress]
        else { return }
        deliver(packet.bytes, from: packet.source, to: internalAddress, endpoint: endpoint, realm: inside)
    }

    private func deliver(_ bytes: [UInt8], from source: STUNAddress, to destination: STUNAddress, endpoint: Endpoint, realm: Realm) {
        guard !severed.contains(destination.ip) else { return }
        delivered += 1
        switch endpoint {
        case .stunServer:
            if let reply = stunResponder.respond(to: bytes, from: source, receivedOn: destination) {
                send(reply, from: destination, to: source, in: realm)
            }
        case .peer(let peer):
            peer.receive(bytes, from: source, to: destination, now: now)
        case .turnServer(let turn):
            turn.receive(bytes, from: .udp(source))
        case .relayed(let turn):
            turn.fromPeer(bytes, peer: source, relayed: destination)
        }
    }
}

/// One ICE agent bound to addresses in a realm.
final class SimPeer {
    let name: String
    let agent: ICEAgent
    let realm: SimulatedNetwork.Realm
    let addresses: [STUNAddress]
    var events: [ICEEvent] = []
    var states: [ICEState] = []
    var receivedData: [[UInt8]] = []
    var releasedProbeBases = 0

    init(name: String, agent: ICEAgent, realm: SimulatedNetwork.Realm, addresses: [STUNAddress]) {
        self.name = name
        self.agent = agent
        self.realm = realm
        self.addresses = addresses
    }

    func receive(_ bytes: [UInt8], from source: STUNAddress, to local: STUNAddress, now: Duration) {
        if Demux.classify(datagram: bytes) == .stun || agent.isTURNServer(source, base: local) {
            agent.handleInput(bytes, from: source, to: local, now: now)
        } else {
            receivedData.append(bytes)
        }
        collectRelayed()
    }

    /// Application data that came through a relay.
    func collectRelayed() {
        while let received = agent.pollReceived() { receivedData.append(received.bytes) }
    }

    var selectedPairs: [ICEPair] {
        events.compactMap { if case .selectedPairChanged(let pair) = $0 { pair } else { nil } }
    }

    var failureReason: String? { failure?.description }

    var failure: ICEFailure? {
        if case .failed(let failure) = agent.state { return failure }
        return nil
    }
}

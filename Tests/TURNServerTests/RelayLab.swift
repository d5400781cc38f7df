import STUN
import TestSupport
import TURN
import TURNServer

/// An in-memory relay: a `TURNServer`, real `TURNClient`s on their own
/// 5-tuples, relayed sockets that are just addresses, a manual clock, and
/// "outside" peers that record what reaches them. Datagrams between two
/// relayed addresses loop back into the server, as the kernel would.
final class RelayLab {
    static let secret: [UInt8] = Array("lab-secret".utf8)
    static let serverAddress = STUNAddress(ipv4: 192, 0, 2, 1, port: 3478)
    static let unixTime: Int64 = 1_800_000_000

    var now: Duration = .seconds(1000)
    let server: TURNServer
    var clients: [FiveTuple: TURNClient] = [:]
    var events: [FiveTuple: [TURNEvent]] = [:]
    /// What reached outside peers: (from relayed address, to peer, bytes).
    var outside: [(relay: STUNAddress, peer: STUNAddress, data: [UInt8])] = []
    /// Raw bytes sent to tuples without a `TURNClient` (hand-made requests).
    var rawReplies: [FiveTuple: [[UInt8]]] = [:]
    var openRelays: Set<STUNAddress> = []
    private var nextRelayPort: UInt16 = 50_000
    /// When false, the owner "cannot open a socket" (508 path).
    var canOpenRelays = true

    init(configure: (inout TURNServerConfiguration) -> Void = { _ in }) {
        var configuration = TURNServerConfiguration(realm: "lab.test", secret: Self.secret)
        configure(&configuration)
        var random = SeededRandom(seed: 7)
        server = TURNServer(configuration: configuration, now: now, random: &random)
    }

    static func tuple(_ lastOctet: UInt8, port: UInt16 = 40_000, transport: FiveTuple.Transport = .udp) -> FiveTuple {
        FiveTuple(client: STUNAddress(ipv4: 203, 0, 113, lastOctet, port: port), server: serverAddress, transport: transport)
    }

    /// REST credentials as `/api/ice-servers` issues them.
    static func credentials(user: String, expiry: Int64 = unixTime + 3600, secret: [UInt8] = secret) -> (String, String) {
        let username = "\(expiry):\(user)"
        return (username, RESTCredential.password(secret: secret, username: username)!)
    }

    @discardableResult
    func addClient(_ tuple: FiveTuple, user: String = "alice", expiry: Int64 = unixTime + 3600, secret: [UInt8] = secret) -> TURNClient {
        let (username, password) = Self.credentials(user: user, expiry: expiry, secret: secret)
        let client = TURNClient(server: Self.serverAddress, transport: tuple.transport == .udp ? .udp : .tcp,
                                username: username, password: password, now: now, random: SeededRandom(seed: UInt64(tuple.client.port)))
        clients[tuple] = client
        pump()
        return client
    }

    /// Delivers everything queued until nothing moves.
    func pump() {
        var moved = true
        while moved {
            moved = false
            for (tuple, client) in clients {
                while let bytes = client.pollTransmit() {
                    moved = true
                    apply(server.handleClient(bytes, from: tuple, now: now, unixTime: Self.unixTime + Int64(now.components.seconds) - 1000))
                }
                while let event = client.pollEvent() { events[tuple, default: []].append(event) }
            }
        }
    }

    /// Hands a raw message from `tuple` to the server; returns its replies.
    func raw(_ bytes: [UInt8], from tuple: FiveTuple) -> [[UInt8]] {
        rawReplies[tuple] = []
        apply(server.handleClient(bytes, from: tuple, now: now, unixTime: Self.unixTime + Int64(now.components.seconds) - 1000))
        return rawReplies[tuple] ?? []
    }

    /// A datagram from an outside peer to a relayed address.
    func fromPeer(_ data: [UInt8], peer: STUNAddress, to relay: STUNAddress) {
        apply(server.handlePeer(data, from: peer, relay: relay, now: now))
        pump()
    }

    func advance(by duration: Duration) {
        let target = now + duration
        while true {
            let deadlines = clients.values.compactMap { $0.pollTimeout() } + [server.pollTimeout()].compactMap { $0 }
            guard let next = deadlines.filter({ $0 <= target }).min() else { break }
            now = max(now, next)
            for client in clients.values where (client.pollTimeout() ?? .seconds(Int64.max)) <= now { client.handleTimeout(now: now) }
            if let deadline = server.pollTimeout(), deadline <= now { apply(server.handleTimeout(now: now)) }
            pump()
        }
        now = target
        apply(server.handleTimeout(now: now))
        pump()
    }

    func apply(_ outputs: [TURNServerOutput]) {
        for output in outputs {
            switch output {
            case .toClient(let tuple, let bytes):
                if let client = clients[tuple] { client.handleInput(bytes, now: now) } else { rawReplies[tuple, default: []].append(bytes) }
            case .toPeer(let relay, let peer, let data):
                if openRelays.contains(peer) {
                    apply(server.handlePeer(data, from: relay, relay: peer, now: now))
                } else {
                    outside.append((relay, peer, data))
                }
            case .openRelay(let pending):
                var address: STUNAddress?
                if canOpenRelays {
                    if pending.evenPort && nextRelayPort % 2 == 1 { nextRelayPort += 1 }
                    address = STUNAddress(ipv4: 192, 0, 2, 1, port: nextRelayPort)
                    nextRelayPort += 1
                    openRelays.insert(address!)
                }
                apply(server.relayOpened(pending, address: address, now: now))
            case .closeRelay(let address):
                openRelays.remove(address)
            }
        }
    }

    func takeEvents(_ tuple: FiveTuple) -> [TURNEvent] {
        defer { events[tuple] = [] }
        pump()
        return events[tuple] ?? []
    }
}

/// Hand-made requests, for what a well-behaved client never sends.
struct RawRequest {
    var method: STUNMethod
    var attributes: [STUNAttribute] = []
    var id = STUNTransactionID(high: 1, low: 2)

    func bytes(username: String? = nil, password: String? = nil, realm: String = "lab.test", nonce: String? = nil) -> [UInt8] {
        var all = attributes
        var key: STUNKey?
        if let username, let password, let nonce {
            all += [.username(username), .realm(realm), .nonce(nonce)]
            key = STUNKey.longTerm(username: username, realm: realm, password: password)
        }
        return STUNMessage(type: STUNMessageType(method: method, messageClass: .request), transactionID: id, attributes: all)
            .encoded(integrity: key, fingerprint: true)
    }
}

extension Array where Element == [UInt8] {
    /// The decoded single reply, for `#expect`.
    var onlyMessage: STUNMessage? {
        guard count == 1 else { return nil }
        return try? STUNMessage.decode(self[0])
    }
}

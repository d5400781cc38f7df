import TestSupport
import STUN
import TURN


/// A minimal TURN server built on the STUN codec: enough of RFC 8656 to
/// answer the long-term credential challenge, stale nonces, and each
/// request kind, and to record what the client relays.
final class FakeTURNServer {
    let realm = "chatcli.test"
    let username = "1700000000:alice"
    let password = "secret"
    var nonce = "nonce-1"
    let relayed = STUNAddress(ipv4: 198, 51, 100, 7, port: 50_000)
    let mapped = STUNAddress(ipv4: 203, 0, 113, 9, port: 40_000)
    var grantedLifetime: UInt32 = 600

    /// Answer every request of this method with this error code.
    var errors: [STUNMethod: Int] = [:]
    /// Answer the next request of any method with 438 and a fresh nonce
    /// (count how many times).
    var staleNonces = 0
    /// Drop requests instead of answering (to test timeouts).
    var silent = false

    private(set) var requests: [STUNMessage] = []
    private(set) var sendIndications: [(peer: STUNAddress, data: [UInt8])] = []
    private(set) var channelData: [ChannelData] = []
    private(set) var channels: [UInt16: STUNAddress] = [:]
    private(set) var rawChannelFrames: [[UInt8]] = []
    private var framer = TURNStreamFramer()

    var key: STUNKey? { STUNKey.longTerm(username: username, realm: realm, password: password) }

    func requests(_ method: STUNMethod) -> [STUNMessage] {
        requests.filter { $0.type.method == method }
    }

    /// Bytes the client sent (one datagram, or a stream chunk over TCP);
    /// returns the replies.
    func receive(_ bytes: [UInt8], stream: Bool) -> [[UInt8]] {
        guard stream else { return handle(bytes) }
        framer.append(bytes)
        var replies: [[UInt8]] = []
        while let frame = framer.next() {
            switch frame {
            case .stun(let b), .channelData(let b): replies += handle(b)
            }
        }
        return replies
    }

    private func handle(_ bytes: [UInt8]) -> [[UInt8]] {
        if let first = bytes.first, ChannelData.startsChannelData(first) {
            rawChannelFrames.append(bytes)
            if let frame = ChannelData.decode(bytes) { channelData.append(frame) }
            return []
        }
        guard let message = try? STUNMessage.decode(bytes) else { return [] }
        if message.type.messageClass == .indication {
            if message.type.method == .send, let peer = message.xorPeerAddress, let data = message.data {
                sendIndications.append((peer, data))
            }
            return []
        }
        guard message.type.messageClass == .request else { return [] }
        requests.append(message)
        if silent { return [] }
        let method = message.type.method
        guard message.contains(.messageIntegrity), let key else {
            return [error(401, to: message, attributes: [.realm(realm), .nonce(nonce)])]
        }
        guard STUNMessage.verifyIntegrity(of: bytes, key: key) == .valid, message.username == username else {
            return [error(401, to: message, attributes: [.realm(realm), .nonce(nonce)])]
        }
        if staleNonces > 0 || message.nonce != nonce {
            if staleNonces > 0 { staleNonces -= 1 }
            nonce = "nonce-\(requests.count + 1)"
            return [error(438, to: message, attributes: [.realm(realm), .nonce(nonce)], key: key)]
        }
        if let code = errors[method] { return [error(code, to: message, key: key)] }
        var attributes: [STUNAttribute] = []
        switch method {
        case .allocate:
            attributes = [.xorRelayedAddress(relayed), .xorMappedAddress(mapped), .lifetime(grantedLifetime)]
        case .refresh:
            attributes = [.lifetime(min(message.lifetime ?? grantedLifetime, grantedLifetime))]
        case .channelBind:
            if case .channelNumber(let number)? = message.attribute(.channelNumber), let peer = message.xorPeerAddress {
                channels[number] = peer
            }
        default:
            break
        }
        let response = STUNMessage(
            type: STUNMessageType(method: method, messageClass: .successResponse),
            transactionID: message.transactionID, attributes: attributes)
        return [response.encoded(integrity: key, fingerprint: true)]
    }

    private func error(_ code: Int, to request: STUNMessage, attributes: [STUNAttribute] = [], key: STUNKey? = nil) -> [UInt8] {
        let errorCode = STUNErrorCode(code: code, reason: "Test") ?? .serverError
        return STUNMessage(
            type: STUNMessageType(method: request.type.method, messageClass: .errorResponse),
            transactionID: request.transactionID, attributes: [.errorCode(errorCode)] + attributes
        ).encoded(integrity: key, fingerprint: true)
    }

    /// A Data indication from `peer`, as the server relays it.
    func dataIndication(from peer: STUNAddress, _ data: [UInt8], id: UInt64 = 1) -> [UInt8] {
        STUNMessage(
            type: STUNMessageType(method: .data, messageClass: .indication),
            transactionID: STUNTransactionID(high: 7, low: id),
            attributes: [.xorPeerAddress(peer), .data(data)]
        ).encoded(fingerprint: true)
    }
}

/// A client and the fake server on TestSupport's `NetworkEmulator`, on a
/// manual clock. The default path is perfect and instant, so each test reads
/// as a conversation; a test that wants loss, delay, duplication or
/// reordering sets `conditions`. Over TCP the bytes are a stream: they keep
/// their order and are never lost, only delayed.
final class Link {
    static let clientAddress = STUNAddress(ipv4: 10, 0, 0, 2, port: 50_000)
    static let serverAddress = STUNAddress(ipv4: 192, 0, 2, 1, port: 3478)

    let server = FakeTURNServer()
    let client: TURNClient
    let transport: TURNTransport
    let net: NetworkEmulator<STUNAddress>
    var now: Duration { net.now }
    var events: [TURNEvent] = []
    /// Every chunk the client transmitted, in order.
    var sent: [[UInt8]] = []

    init(_ transport: TURNTransport = .udp, seed: UInt64 = 1, conditions: LinkConditions = .perfect) {
        self.transport = transport
        net = NetworkEmulator(seed: seed &+ 0x5EED, conditions: conditions)
        client = TURNClient(
            server: Self.serverAddress, transport: transport,
            username: server.username, password: server.password,
            now: .zero, random: SeededRandom(seed: seed))
    }

    /// Delivers everything due by `now`, both ways, until the link is quiet.
    /// Each transmit's answers arrive before the next transmit is taken, as
    /// on a path with no delay.
    func pump() {
        var moved = true
        while moved {
            moved = deliverDue()
            while let bytes = client.pollTransmit() {
                moved = true
                sent.append(bytes)
                put(bytes, from: Self.clientAddress, to: Self.serverAddress)
                deliverDue()
            }
            while let event = client.pollEvent() { events.append(event); moved = true }
        }
    }

    /// Moves the clock to `time`, firing each due timeout and delivering each
    /// arrival on the way, in time order.
    func advance(to time: Duration) {
        pump()
        while let next = [client.pollTimeout(), net.nextArrival].compactMap({ $0 }).min(), next <= time {
            net.advance(to: next)
            if let deadline = client.pollTimeout(), deadline <= now { client.handleTimeout(now: now) }
            pump()
        }
        net.advance(to: time)
        pump()
    }

    /// Bytes from the server (or an attacker on its address), now.
    func deliver(_ bytes: [UInt8]) {
        client.handleInput(bytes, now: now)
        pump()
    }

    @discardableResult
    private func deliverDue() -> Bool {
        var moved = false
        while let datagram = net.popDue() {
            moved = true
            if datagram.destination == Self.serverAddress {
                for reply in server.receive(datagram.bytes, stream: transport == .tcp) {
                    put(reply, from: Self.serverAddress, to: Self.clientAddress)
                }
            } else {
                client.handleInput(datagram.bytes, now: now)
            }
        }
        return moved
    }

    private func put(_ bytes: [UInt8], from source: STUNAddress, to destination: STUNAddress) {
        if transport == .udp { return net.send(bytes, from: source, to: destination) }
        // A stream: in order and complete (equal delays keep the sending order).
        let delay = net.conditions(from: source, to: destination).delay
        net.schedule(EmulatedDatagram(bytes: bytes, source: source, destination: destination, at: now + delay))
    }

    /// Events since the last call.
    func takeEvents() -> [TURNEvent] {
        defer { events = [] }
        return events
    }

    func allocate() {
        pump()
        _ = takeEvents()
    }
}

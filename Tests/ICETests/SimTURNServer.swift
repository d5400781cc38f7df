import ICE
import STUN
import TURN

/// A TURN server (RFC 8656) on the simulated internet: long-term credential
/// challenge, allocations keyed by the client's public address (UDP) or its
/// stream, permissions by peer IP, channels, Send/Data indications and
/// ChannelData. It really relays, so ICE checks and data cross it.
final class SimTURNServer {
    static let username = "1700000000:sim"
    static let password = "sim-secret"
    let address: STUNAddress
    let realm = "sim.test"
    let nonce = "sim-nonce"
    private var key: STUNKey? { .longTerm(username: Self.username, realm: realm, password: Self.password) }

    /// Where an allocation's client is: a UDP address or a peer's stream.
    enum Client: Hashable {
        case udp(STUNAddress)
        case stream(ObjectIdentifier)
    }

    struct Allocation {
        let client: Client
        let relayed: STUNAddress
        var permissions: Set<[UInt8]> = []
        var channels: [UInt16: STUNAddress] = [:]
    }

    private(set) var allocations: [STUNAddress: Allocation] = [:]
    private(set) var deallocated = 0
    private var nextPort: UInt16 = 50_000
    /// Sends bytes to a client: (bytes, client).
    var output: (([UInt8], Client) -> Void)?
    /// Sends a datagram from a relayed address to a peer.
    var relayOut: (([UInt8], STUNAddress, STUNAddress) -> Void)?
    /// Registers a relayed address on the network.
    var bind: ((STUNAddress) -> Void)?

    init(address: STUNAddress) {
        self.address = address
    }

    /// A restart of the server: every allocation is gone, unannounced.
    func forgetAllocations() {
        allocations = [:]
    }

    /// One datagram or stream frame from a client.
    func receive(_ bytes: [UInt8], from client: Client) {
        guard let first = bytes.first else { return }
        let allocation = allocations.first { $0.value.client == client }?.value
        if ChannelData.startsChannelData(first) {
            guard let frame = ChannelData.decode(bytes), let allocation, let peer = allocation.channels[frame.number] else { return }
            relayOut?(frame.data, allocation.relayed, peer)
            return
        }
        guard let message = try? STUNMessage.decode(bytes) else { return }
        if message.type.messageClass == .indication {
            guard message.type.method == .send, let allocation, let peer = message.xorPeerAddress, let data = message.data,
                  allocation.permissions.contains(peer.ip)
            else { return }
            relayOut?(data, allocation.relayed, peer)
            return
        }
        guard message.type.messageClass == .request else { return }
        guard message.contains(.messageIntegrity), let key, STUNMessage.verifyIntegrity(of: bytes, key: key) == .valid,
              message.username == Self.username, message.nonce == nonce
        else { return reply(error: 401, to: message, client: client) }
        handleRequest(message, client: client, allocation: allocation, key: key)
    }

    /// A datagram from a peer to a relayed address: to the client if
    /// permitted, on its channel when bound.
    func fromPeer(_ bytes: [UInt8], peer: STUNAddress, relayed: STUNAddress) {
        guard let allocation = allocations[relayed], allocation.permissions.contains(peer.ip) else { return }
        if let number = allocation.channels.first(where: { $0.value == peer })?.key {
            let stream: Bool = if case .stream = allocation.client { true } else { false }
            output?(ChannelData(number: number, data: bytes).encoded(padded: stream), allocation.client)
            return
        }
        let indication = STUNMessage(
            type: STUNMessageType(method: .data, messageClass: .indication), transactionID: STUNTransactionID(high: 1, low: 1),
            attributes: [.xorPeerAddress(peer), .data(bytes)])
        output?(indication.encoded(fingerprint: true), allocation.client)
    }

    private func handleRequest(_ message: STUNMessage, client: Client, allocation: Allocation?, key: STUNKey) {
        var attributes: [STUNAttribute] = []
        switch message.type.method {
        case .allocate:
            guard allocation == nil else { return reply(error: 437, to: message, client: client) }
            let relayed = STUNAddress(ip: address.ip, port: nextPort) ?? address
            nextPort += 1
            allocations[relayed] = Allocation(client: client, relayed: relayed)
            bind?(relayed)
            let mapped = if case .udp(let source) = client { source } else { address }
            attributes = [.xorRelayedAddress(relayed), .xorMappedAddress(mapped), .lifetime(600)]
        case .refresh:
            guard let allocation else { return reply(error: 437, to: message, client: client) }
            if message.lifetime == 0 {
                allocations[allocation.relayed] = nil
                deallocated += 1
            }
            attributes = [.lifetime(message.lifetime ?? 600)]
        case .createPermission:
            guard let allocation, let peer = message.xorPeerAddress else { return reply(error: 437, to: message, client: client) }
            allocations[allocation.relayed]?.permissions.insert(peer.ip)
        case .channelBind:
            guard let allocation, let peer = message.xorPeerAddress,
                  case .channelNumber(let number)? = message.attribute(.channelNumber)
            else { return reply(error: 400, to: message, client: client) }
            allocations[allocation.relayed]?.channels[number] = peer
            allocations[allocation.relayed]?.permissions.insert(peer.ip)
        default:
            return reply(error: 400, to: message, client: client)
        }
        let response = STUNMessage(
            type: STUNMessageType(method: message.type.method, messageClass: .successResponse),
            transactionID: message.transactionID, attributes: attributes)
        output?(response.encoded(integrity: key, fingerprint: true), client)
    }

    private func reply(error code: Int, to request: STUNMessage, client: Client) {
        let response = STUNMessage(
            type: STUNMessageType(method: request.type.method, messageClass: .errorResponse), transactionID: request.transactionID,
            attributes: [.errorCode(STUNErrorCode(code: code, reason: "sim") ?? .serverError), .realm(realm), .nonce(nonce)])
        output?(response.encoded(fingerprint: true), client)
    }
}

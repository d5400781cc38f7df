import STUN
import TURN
import TURNServer

/// The relay inside `chatcli serve` (RFC 8656 server side) under hostile
/// clients and peers. The input is a script of records
/// `op (1) | length (2) | payload`:
/// - op & 3 == 0: the payload as a client datagram on tuple `op >> 2 & 3`
///   (op & 0x10: re-signed with valid credentials and the current nonce,
///   so the fuzzer reaches past authentication);
/// - 1: the payload from a peer to relayed address `op >> 2 & 3`, its
///   first 6 bytes the peer's address;
/// - 2: the clock moves on by payload[0] × 10 s;
/// - 3: the payload as stream bytes on tuple `op >> 2 & 3` over TCP.
///
/// Invariants: quotas and capacity hold, nothing goes to a peer the
/// policy forbids (other than a relayed address of this server), and
/// every relay socket asked for is the owner's to close.
extension FuzzTarget {
    static let turnServer = FuzzTarget(
        name: "turn-server", summary: "the embedded TURN relay (RFC 8656 server): requests, ChannelData, peers, expiry", run: runTURNServer)

    @Sendable static func runTURNServer(_ data: [UInt8]) {
        var configuration = TURNServerConfiguration(realm: "fuzz", secret: Array("fuzz-secret".utf8))
        configuration.allocationsPerUser = 2
        configuration.maxAllocations = 3
        configuration.permissionsPerAllocation = 4
        var random = FuzzRandom()
        var now = Duration.seconds(100)
        let server = TURNServer(configuration: configuration, now: now, random: &random)
        let username = "2000000000:fuzz"
        let password = RESTCredential.password(secret: configuration.secret, username: username) ?? ""
        let key = STUNKey.longTerm(username: username, realm: "fuzz", password: password)
        let server4 = STUNAddress(ipv4: 192, 0, 2, 1, port: 3478)
        let tuples = (UInt8(1)...4).map { FiveTuple(client: STUNAddress(ipv4: 203, 0, 113, $0, port: 4000), server: server4, transport: .udp) }
        let streams = (UInt8(1)...4).map { FiveTuple(client: STUNAddress(ipv4: 203, 0, 113, $0, port: 5000), server: server4, transport: .tcp) }
        var framers = [TURNStreamFramer](repeating: TURNStreamFramer(), count: 4)
        var relays: [STUNAddress] = []
        var nonce = ""
        var nextPort: UInt16 = 50_000

        func apply(_ outputs: [TURNServerOutput]) {
            for output in outputs {
                switch output {
                case .toClient(_, let bytes):
                    if let reply = try? STUNMessage.decode(bytes), let fresh = reply.nonce { nonce = fresh }
                case .toPeer(let relay, let peer, _):
                    FuzzCheck.expect(relays.contains(relay), "data leaves only from an open relayed address")
                    FuzzCheck.expect(relays.contains(peer) || configuration.peerPolicy.verdict(for: peer) == .allowed,
                                     "nothing is relayed to a forbidden peer")
                case .openRelay(let pending):
                    let address = STUNAddress(ipv4: 192, 0, 2, 1, port: nextPort)
                    nextPort &+= 1
                    relays.append(address)
                    apply(server.relayOpened(pending, address: address, now: now))
                case .closeRelay(let address):
                    FuzzCheck.expect(relays.contains(address), "only open relays are closed")
                    relays.removeAll { $0 == address }
                }
            }
            FuzzCheck.expect(server.allocationCount <= configuration.maxAllocations, "capacity holds")
            FuzzCheck.expect(relays.count == server.allocationCount, "one relay socket per allocation")
        }

        var reader = data[...]
        while reader.count >= 3 {
            let op = reader.removeFirst()
            let length = Int(reader.removeFirst()) << 8 | Int(reader.removeFirst())
            let payload = Array(reader.prefix(length))
            reader = reader.dropFirst(length)
            let index = Int(op >> 2 & 3)
            switch op & 3 {
            case 0:
                var bytes = payload
                if op & 0x10 != 0, let message = try? STUNMessage.decode(payload) {
                    var signed = message
                    signed.attributes = message.attributes.filter { ![.messageIntegrity, .messageIntegritySHA256, .fingerprint].contains($0.type) }
                        + [.username(username), .realm("fuzz"), .nonce(nonce)]
                    bytes = signed.encoded(integrity: key, fingerprint: true)
                }
                apply(server.handleClient(bytes, from: tuples[index], now: now, unixTime: 1_900_000_000))
            case 1:
                guard payload.count >= 6, !relays.isEmpty else { continue }
                let peer = STUNAddress(ipv4: payload[0], payload[1], payload[2], payload[3], port: UInt16(payload[4]) << 8 | UInt16(payload[5]))
                apply(server.handlePeer(Array(payload.dropFirst(6)), from: peer, relay: relays[index % relays.count], now: now))
            case 2:
                now += .seconds(Int64(payload.first ?? 1) * 10)
                apply(server.handleTimeout(now: now))
            default:
                framers[index].append(payload)
                while let frame = framers[index].next() {
                    switch frame {
                    case .stun(let bytes), .channelData(let bytes):
                        apply(server.handleClient(bytes, from: streams[index], now: now, unixTime: 1_900_000_000))
                    }
                }
                if framers[index].isCorrupt {
                    apply(server.clientClosed(streams[index]))
                    framers[index] = TURNStreamFramer()
                }
            }
        }
        apply(server.handleTimeout(now: now + .seconds(4000)))
        FuzzCheck.expect(server.allocationCount == 0 && relays.isEmpty, "every allocation expires")
    }
}

/// A fixed generator: the fuzzer must be deterministic per input.
private struct FuzzRandom: RandomNumberGenerator {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

import ICE
import STUN
import Testing
import TestSupport

/// Hostile input into `handleInput`: never a crash, never a busy timer.
@Suite(.computeThread) struct FuzzTests {
    static let local = ICECredentials(ufrag: "LOCAL1", pwd: "localpasswordlocalpassword")
    static let remote = ICECredentials(ufrag: "REMOTE", pwd: "remotepasswordremotepassword")
    static let base = STUNAddress(ipv4: 10, 0, 0, 2, port: 5000)

    func makeAgent(seed: UInt64) -> ICEAgent {
        let agent = ICEAgent(role: seed % 2 == 0 ? .controlling : .controlled, localCredentials: Self.local,
                             tieBreaker: seed, now: .zero, random: SeededRandom(seed: seed))
        agent.addLocalInterface(Self.base)
        agent.addSTUNServer(STUNAddress(ipv4: 198, 51, 100, 1, port: 3478))
        agent.setRemoteCredentials(ufrag: Self.remote.ufrag, pwd: Self.remote.pwd)
        if let candidate = ICECandidate(sdpAttribute: "candidate:1 1 udp 2130706431 203.0.113.9 6000 typ host") {
            agent.addRemoteCandidate(candidate)
        }
        agent.remoteEndOfCandidates()
        return agent
    }

    func randomAddress(_ rng: inout SeededRandom) -> STUNAddress {
        if rng.next() % 4 == 0 { return STUNAddress(ipv4: 203, 0, 113, 9, port: 6000) }
        return STUNAddress(ipv4: 203, 0, 113, UInt8(rng.next() % 4), port: UInt16(6000 + rng.next() % 3))
    }

    func randomAttributes(_ rng: inout SeededRandom) -> [STUNAttribute] {
        let pool: [STUNAttribute] = [
            .username("LOCAL1:REMOTE"), .username("LOCAL1:"), .username(":"), .priority(UInt32(truncatingIfNeeded: rng.next())),
            .useCandidate, .iceControlling(tieBreaker: rng.next()), .iceControlled(tieBreaker: rng.next()),
            .xorMappedAddress(randomAddress(&rng)), .mappedAddress(randomAddress(&rng)),
            .errorCode(STUNErrorCode(code: 300 + Int(rng.next() % 400), reason: "x") ?? .badRequest),
            .errorCode(.roleConflict), .other(STUNAttributeType(rawValue: UInt16(truncatingIfNeeded: rng.next())), [1, 2]),
        ]
        return (0..<Int(rng.next() % 6)).map { _ in pool[Int(rng.next() % UInt64(pool.count))] }
    }

    @Test func randomAndMutatedSTUNInputNeverCrashes() {
        for seed in UInt64(1)...20 {
            var rng = SeededRandom(seed: seed)
            let agent = makeAgent(seed: seed)
            var now = Duration.zero
            var requestIDs: [STUNTransactionID] = []
            var sameInstant = 0
            for step in 0..<400 {
                now += .milliseconds(Int64(rng.next() % 40))
                let source = randomAddress(&rng)
                let datagram: [UInt8]
                switch rng.next() % 5 {
                case 0:
                    datagram = (0..<Int(rng.next() % 120)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                case 1, 2:
                    // Well-formed messages, signed with a key the agent knows,
                    // in every class, some answering our own requests.
                    let classes: [STUNMessageType] = [.bindingRequest, .bindingSuccess, .bindingError, .bindingIndication]
                    let type = classes[Int(rng.next() % 4)]
                    let id = !requestIDs.isEmpty && rng.next() % 2 == 0
                        ? requestIDs[Int(rng.next() % UInt64(requestIDs.count))]
                        : STUNTransactionID.random(using: &rng)
                    let key: STUNKey? = switch rng.next() % 3 {
                    case 0: .shortTerm(password: Self.local.pwd)
                    case 1: .shortTerm(password: Self.remote.pwd)
                    default: nil
                    }
                    datagram = STUNMessage(type: type, transactionID: id, attributes: randomAttributes(&rng))
                        .encoded(integrity: key, fingerprint: rng.next() % 4 != 0)
                default:
                    // A valid check, then flipped or cut.
                    var bytes = STUNMessage(
                        type: .bindingRequest, transactionID: .random(using: &rng),
                        attributes: [.username("LOCAL1:REMOTE"), .priority(100), .iceControlled(tieBreaker: 1)]
                    ).encoded(integrity: .shortTerm(password: Self.local.pwd), fingerprint: true)
                    if rng.next() % 2 == 0, !bytes.isEmpty {
                        bytes[Int(rng.next() % UInt64(bytes.count))] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
                    } else {
                        bytes = Array(bytes.prefix(Int(rng.next() % UInt64(bytes.count + 1))))
                    }
                    datagram = bytes
                }
                agent.handleInput(datagram, from: source, to: Self.base, now: now)
                if let deadline = agent.pollTimeout(), deadline <= now {
                    agent.handleTimeout(now: now)
                    sameInstant = agent.pollTimeout().map { $0 <= now } == true ? sameInstant + 1 : 0
                }
                #expect(sameInstant < 5, "seed \(seed) step \(step): timer does not advance")
                while let transmit = agent.pollTransmit() {
                    if let message = try? STUNMessage.decode(transmit.bytes), message.type.messageClass == .request {
                        requestIDs.append(message.transactionID)
                    }
                }
                while agent.pollEvent() != nil {}
                _ = agent.send([0x17])
            }
        }
    }
}

import ChatClient
import STUN

/// The round trip `chatcli doctor` times through a TURN server, sans-IO.
///
/// Two allocations on one server, 0 and 1, each permit the other's relayed
/// address; 0 sends a numbered probe to 1's relayed address and 1 echoes it
/// to 0's. A relay drops what reaches an allocation without a permission for
/// the sender (RFC 8656 §9), and the leg between the two relayed addresses
/// is UDP, so:
/// - the first probe goes only once *both* permissions are installed: a
///   probe sent as soon as 0's was could reach 1's relayed address before the
///   server had installed 1's, and be dropped (coturn serves two TCP
///   connections on separate threads, so under load it did);
/// - a probe goes every `resendInterval` until one comes back, and the round
///   trip is timed from the sending of the probe that came back.
///
/// The owner performs the returned actions and calls `handleTimeout(now:)`
/// when `pollTimeout()` is due.
struct RelayProbe {
    enum Action: Hashable, Sendable {
        case createPermission(on: Int, for: STUNAddress)
        case send([UInt8], on: Int, to: STUNAddress)
    }

    static let resendInterval: Duration = .milliseconds(500)
    private static let tag = Array("chatcli doctor relay probe ".utf8)

    private var relayed: [STUNAddress?] = [nil, nil]
    private var permitted = [false, false]
    /// When each probe went, indexed by its number.
    private var sentAt: [Duration] = []
    private var nextProbeAt: Duration?
    /// Set once a probe came back.
    private(set) var roundTrip: Duration?

    var isAllocated: Bool { !relayed.contains(nil) }
    var probesSent: Int { sentAt.count }

    /// Allocation `index` relays at `address`; once both exist, each asks
    /// for a permission for the other.
    mutating func allocated(_ address: STUNAddress, on index: Int) -> [Action] {
        relayed[index] = address
        guard let a = relayed[0], let b = relayed[1] else { return [] }
        return [.createPermission(on: 0, for: b), .createPermission(on: 1, for: a)]
    }

    /// Allocation `index`'s permission for the other is installed.
    mutating func permissionCreated(on index: Int, now: Duration) -> [Action] {
        permitted[index] = true
        guard isAllocated, !permitted.contains(false), sentAt.isEmpty else { return [] }
        return probe(now: now)
    }

    /// Data that arrived on allocation `index` from `peer`: 1 echoes a
    /// probe from 0, and 0 times the first echo of one of its probes.
    mutating func received(_ bytes: [UInt8], from peer: STUNAddress, on index: Int, now: Duration) -> [Action] {
        guard let number = Self.number(in: bytes), let other = relayed[1 - index], peer == other else { return [] }
        if index == 1 { return [.send(bytes, on: 1, to: peer)] }
        guard roundTrip == nil, number < sentAt.count else { return [] }
        roundTrip = now - sentAt[number]
        nextProbeAt = nil
        return []
    }

    mutating func handleTimeout(now: Duration) -> [Action] {
        guard let at = nextProbeAt, at <= now else { return [] }
        return probe(now: now)
    }

    /// When the next probe is due, while none has come back.
    func pollTimeout() -> Duration? { nextProbeAt }

    private mutating func probe(now: Duration) -> [Action] {
        guard let target = relayed[1], sentAt.count <= Int(UInt16.max) else { return [] }
        let number = UInt16(sentAt.count)
        sentAt.append(now)
        nextProbeAt = now + Self.resendInterval
        return [.send(Self.tag + [UInt8(number >> 8), UInt8(number & 0xFF)], on: 0, to: target)]
    }

    /// The probe number in `bytes`, if they are a probe.
    private static func number(in bytes: [UInt8]) -> Int? {
        guard bytes.count == tag.count + 2, bytes.starts(with: tag) else { return nil }
        return Int(bytes[tag.count]) << 8 | Int(bytes[tag.count + 1])
    }
}

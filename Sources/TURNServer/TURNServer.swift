import STUN
import TURN
import Wire

/// A TURN server (RFC 8656) for UDP relaying, sans-IO: the allocation
/// table, permissions, channel bindings, long-term credentials with the
/// TURN REST scheme, stateless nonces, quotas and bandwidth caps.
///
/// The owner runs the sockets. It passes what clients send
/// (`handleClient(_:from:now:unixTime:)`, one STUN message or ChannelData
/// frame per call; stream owners split with `TURNStreamFramer`), what peers
/// send to relayed addresses (`handlePeer(_:from:relay:now:)`), and calls
/// `handleTimeout(now:)` at `pollTimeout()`. Each returns what to send and
/// which relayed sockets to open or close. `now` is any monotonic clock;
/// `unixTime` (seconds) only checks REST usernames' expiry.
public final class TURNServer {
    public internal(set) var configuration: TURNServerConfiguration
    /// The secret `replaceSecret` replaced, accepted until a Unix time.
    var retiredSecret: (secret: [UInt8], until: Int64)?
    public internal(set) var statistics = TURNServerStatistics()

    var allocations: [FiveTuple: ServerAllocation] = [:]
    var byRelay: [STUNAddress: FiveTuple] = [:]
    /// Advertised (public) relayed address → the bound one, where they differ.
    var byAdvertised: [STUNAddress: STUNAddress] = [:]
    var perUser: [String: Int] = [:]
    var perClientAddress: [[UInt8]: Int] = [:]
    var pending: Set<FiveTuple> = []
    var nonces: NonceIssuer
    var totalBandwidth: TokenBucket
    var indicationCount: UInt64 = 0

    public init(configuration: TURNServerConfiguration, now: Duration, random: inout some RandomNumberGenerator) {
        self.configuration = configuration
        nonces = NonceIssuer(lifetime: configuration.nonceLifetime, random: &random)
        totalBandwidth = TokenBucket(rate: configuration.totalBandwidth, now: now)
    }

    public var allocationCount: Int { allocations.count }

    /// The relayed address of the allocation on this 5-tuple, if any.
    public func relayedAddress(for tuple: FiveTuple) -> STUNAddress? { allocations[tuple]?.relayed }

    /// The earliest allocation expiry: call `handleTimeout` then.
    public func pollTimeout() -> Duration? {
        allocations.values.lazy.map(\.expiry).min()
    }

    /// Deletes allocations whose lifetime ran out; prunes permissions and
    /// channel bindings that expired.
    public func handleTimeout(now: Duration) -> [TURNServerOutput] {
        var outputs: [TURNServerOutput] = []
        for (tuple, allocation) in allocations {
            if allocation.expiry <= now {
                outputs.append(contentsOf: delete(tuple))
            } else {
                allocations[tuple]?.purge(now: now)
            }
        }
        return outputs
    }

    /// The client's transport went away (a TCP connection closed): its
    /// allocation goes with it (RFC 8656 §5).
    public func clientClosed(_ tuple: FiveTuple) -> [TURNServerOutput] {
        pending.remove(tuple)
        return delete(tuple)
    }

    /// Everything a client sends on its 5-tuple.
    public func handleClient(_ bytes: [UInt8], from tuple: FiveTuple, now: Duration, unixTime: Int64) -> [TURNServerOutput] {
        guard let first = bytes.first else { return [] }
        if ChannelData.startsChannelData(first) { return channelData(bytes, from: tuple, now: now) }
        guard let header = RequestHeader(bytes) else { return [] }
        // A FINGERPRINT that does not match: not ours to answer (RFC 8489 §7.3).
        if STUNMessage.verifyFingerprint(of: bytes) == .invalid { return [] }
        let message: STUNMessage
        do {
            message = try STUNMessage.decode(bytes)
        } catch {
            return header.isRequest ? [reply(error: .badRequest, method: header.method, id: header.id, to: tuple)] : []
        }
        switch message.type.messageClass {
        case .indication:
            return message.type.method == .send ? sendIndication(message, from: tuple, now: now) : []
        case .request:
            return request(message, bytes: bytes, from: tuple, now: now, unixTime: unixTime)
        case .successResponse, .errorResponse:
            return []
        }
    }

    // MARK: Allocation bookkeeping

    func delete(_ tuple: FiveTuple) -> [TURNServerOutput] {
        guard let allocation = allocations.removeValue(forKey: tuple) else { return [] }
        byRelay[allocation.relayed] = nil
        byAdvertised[allocation.advertised] = nil
        if let count = perUser[allocation.user] { perUser[allocation.user] = count > 1 ? count - 1 : nil }
        if let count = perClientAddress[tuple.client.ip] { perClientAddress[tuple.client.ip] = count > 1 ? count - 1 : nil }
        statistics.allocations = allocations.count
        return [.closeRelay(allocation.relayed)]
    }

    // MARK: Answers

    func reply(
        error code: STUNErrorCode, method: STUNMethod, id: STUNTransactionID, to tuple: FiveTuple,
        extra: [STUNAttribute] = [], key: STUNKey? = nil
    ) -> TURNServerOutput {
        statistics.errors[code.code, default: 0] += 1
        var attributes: [STUNAttribute] = [.errorCode(code)] + extra
        if let software = configuration.software { attributes.append(.software(software)) }
        let message = STUNMessage(type: STUNMessageType(method: method, messageClass: .errorResponse), transactionID: id, attributes: attributes)
        return .toClient(tuple, message.encoded(integrity: key, fingerprint: true))
    }

    func success(
        method: STUNMethod, id: STUNTransactionID, to tuple: FiveTuple, attributes: [STUNAttribute], key: STUNKey?
    ) -> [UInt8] {
        var all = attributes
        if let software = configuration.software { all.append(.software(software)) }
        let message = STUNMessage(type: STUNMessageType(method: method, messageClass: .successResponse), transactionID: id, attributes: all)
        return message.encoded(integrity: key, fingerprint: true)
    }

    /// A 401 or 438 challenge: the realm and a fresh nonce (RFC 8489 §9.2.4).
    func challenge(_ code: STUNErrorCode, method: STUNMethod, id: STUNTransactionID, to tuple: FiveTuple, now: Duration) -> TURNServerOutput {
        reply(error: code, method: method, id: id, to: tuple,
              extra: [.realm(configuration.realm), .nonce(nonces.issue(for: tuple.client, now: now))])
    }
}

/// The few header fields needed before a full decode: whether to answer
/// (only requests get errors) and with which method and id.
struct RequestHeader {
    let method: STUNMethod
    let id: STUNTransactionID
    let isRequest: Bool

    init?(_ bytes: [UInt8]) {
        guard STUNMessage.isSTUN(bytes), bytes.count >= 20 else { return nil }
        var reader = ByteReader(bytes)
        guard let raw = reader.readU16(), let type = STUNMessageType(rawValue: raw), reader.skip(6),
              let idBytes = reader.readBytes(12), let id = STUNTransactionID(bytes: idBytes)
        else { return nil }
        method = type.method
        self.id = id
        isRequest = type.messageClass == .request
    }
}

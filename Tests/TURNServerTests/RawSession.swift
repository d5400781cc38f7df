import STUN
import TURNServer

/// A client written by hand on one 5-tuple: learns the nonce from a 401,
/// then signs every request with REST credentials, so tests can send what
/// `TURNClient` never would.
final class RawSession {
    let lab: RelayLab
    let tuple: FiveTuple
    var username: String
    var password: String
    var nonce = ""
    private var counter: UInt64 = 100

    init(_ lab: RelayLab, _ tuple: FiveTuple, user: String = "mallory", expiry: Int64 = RelayLab.unixTime + 3600) {
        self.lab = lab
        self.tuple = tuple
        (username, password) = RelayLab.credentials(user: user, expiry: expiry)
    }

    /// Sends a bare Allocate to get a nonce.
    func learnNonce() {
        let reply = lab.raw(RawRequest(method: .allocate, attributes: [.requestedTransport(17)], id: nextID()).bytes(), from: tuple).onlyMessage
        nonce = reply?.nonce ?? ""
    }

    func nextID() -> STUNTransactionID {
        counter += 1
        return STUNTransactionID(high: 7, low: counter)
    }

    /// A signed request; its single reply.
    func send(_ method: STUNMethod, _ attributes: [STUNAttribute], id: STUNTransactionID? = nil) -> STUNMessage? {
        let request = RawRequest(method: method, attributes: attributes, id: id ?? nextID())
        return lab.raw(request.bytes(username: username, password: password, nonce: nonce), from: tuple).onlyMessage
    }

    /// Learns the nonce and allocates; the relayed address.
    func allocate(_ extra: [STUNAttribute] = []) -> STUNAddress? {
        learnNonce()
        return send(.allocate, [.requestedTransport(17)] + extra)?.xorRelayedAddress
    }
}

extension STUNMessage {
    var code: Int? { errorCode?.code }
    var isSuccess: Bool { type.messageClass == .successResponse }
}

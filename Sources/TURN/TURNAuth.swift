import STUN

/// The long-term credential state of a TURN client (RFC 8489 §9.2,
/// RFC 8656 §7.2).
///
/// The first Allocate goes out without credentials; the server's 401
/// names its realm and a nonce, from which the key
/// MD5(username ":" realm ":" password) follows. Every later request
/// carries USERNAME, REALM, NONCE and MESSAGE-INTEGRITY with that key.
/// A 438 (Stale Nonce) answer brings a fresh nonce to retry with.
struct TURNAuth: Sendable {
    let username: String
    let password: String
    private(set) var realm: String?
    private(set) var nonce: String?
    private(set) var key: STUNKey?

    init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    /// USERNAME, REALM and NONCE once a realm and nonce are known; none
    /// before, so the first request is a bare challenge probe.
    var attributes: [STUNAttribute] {
        guard key != nil, let realm, let nonce else { return [] }
        return [.username(username), .realm(realm), .nonce(nonce)]
    }

    /// Takes REALM and NONCE from a 401 or 438 answer. A 438 may omit the
    /// realm, keeping the old one. Returns false when the answer lacks what
    /// is needed (or MD5 is unavailable), so the caller can fail clearly.
    mutating func learn(from response: STUNMessage) -> Bool {
        guard let newNonce = response.nonce, let newRealm = response.realm ?? realm,
              let newKey = STUNKey.longTerm(username: username, realm: newRealm, password: password)
        else { return false }
        realm = newRealm
        nonce = newNonce
        key = newKey
        return true
    }
}

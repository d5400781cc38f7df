import STUN
import Wire

extension TURNServer {
    /// Who sent an authenticated request.
    struct Credentials {
        let username: String
        /// The id after the colon: the unit of the per-user quota.
        let user: String
        let key: STUNKey
    }

    /// Long-term credential checks (RFC 8489 §9.2.4) with REST usernames:
    /// the answer to send instead when they fail. In order: no
    /// MESSAGE-INTEGRITY → 401 with a nonce; USERNAME, REALM or NONCE
    /// missing → 400; a nonce not ours, not from this address or expired →
    /// 438; an expired or malformed REST username, or a wrong MAC → 401.
    func authenticate(
        _ message: STUNMessage, bytes: [UInt8], from tuple: FiveTuple, now: Duration, unixTime: Int64
    ) -> Result<Credentials, Refusal> {
        let method = message.type.method, id = message.transactionID
        guard message.contains(.messageIntegrity) || message.contains(.messageIntegritySHA256) else {
            return .failure(Refusal(challenge(.unauthenticated, method: method, id: id, to: tuple, now: now)))
        }
        guard let username = message.username, let realm = message.realm, let nonce = message.nonce,
              username.utf8.count <= 513, realm.utf8.count <= 763, nonce.utf8.count <= 763
        else { return .failure(Refusal(reply(error: .badRequest, method: method, id: id, to: tuple))) }
        guard realm == configuration.realm, nonces.check(nonce, from: tuple.client, now: now) == .valid else {
            return .failure(Refusal(challenge(.staleNonce, method: method, id: id, to: tuple, now: now)))
        }
        guard let expiry = RESTCredential.expiry(of: username), expiry > unixTime,
              let key = verifiedKey(of: bytes, username: username, realm: realm, unixTime: unixTime)
        else {
            // Fresh nonce, in case the client simply has new credentials to try.
            return .failure(Refusal(challenge(.unauthenticated, method: method, id: id, to: tuple, now: now)))
        }
        let user = String(username.utf8.split(separator: UInt8(ascii: ":"), maxSplits: 1).last.map { String(decoding: $0, as: UTF8.self) } ?? username)
        return .success(Credentials(username: username, user: user, key: key))
    }

    /// The long-term key the message's MAC was made with: the secret's, or
    /// the retired secret's while that is still accepted.
    private func verifiedKey(of bytes: [UInt8], username: String, realm: String, unixTime: Int64) -> STUNKey? {
        var secrets = [configuration.secret]
        if let retiredSecret, unixTime < retiredSecret.until { secrets.append(retiredSecret.secret) }
        for secret in secrets {
            guard let password = RESTCredential.password(secret: secret, username: username),
                  let key = STUNKey.longTerm(username: username, realm: realm, password: password) else { continue }
            if STUNMessage.verifyIntegrity(of: bytes, key: key) == .valid { return key }
        }
        return nil
    }

    /// Signs REST credentials with a new secret from now on (a cluster's
    /// shared secret, learned from Redis or changed there). Credentials
    /// signed with the old one were handed out already and live until their
    /// username's expiry, so the old secret stays good until `retiredUntil`
    /// (Unix seconds; the issuer's credential lifetime from now), then only
    /// the new one is.
    public func replaceSecret(_ secret: [UInt8], retiredUntil: Int64) {
        guard secret != configuration.secret else { return }
        retiredSecret = (configuration.secret, retiredUntil)
        configuration.secret = secret
    }

    struct Refusal: Error {
        let output: TURNServerOutput
        init(_ output: TURNServerOutput) { self.output = output }
    }
}

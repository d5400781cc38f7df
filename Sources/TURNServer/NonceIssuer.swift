import STUN
import Wire

/// Stateless nonces (RFC 8489 §9.2): the relay keeps no table of them, so
/// a flood of unauthenticated requests costs it no memory.
///
/// A nonce is `<expiry, 16 hex digits><MAC, 24 hex digits>`, where the MAC
/// is HMAC-SHA1(key, expiry ‖ client address) cut to 96 bits and the key
/// is drawn at start. It is good only from the address it was issued to
/// and only until its expiry: replayed from elsewhere, or late, it gets
/// 438 (Stale Nonce) and a fresh one. A restart draws a new key, so
/// every old nonce is stale, which a client handles by retrying.
struct NonceIssuer {
    private let key: [UInt8]
    let lifetime: Duration

    init(lifetime: Duration, random: inout some RandomNumberGenerator) {
        var key: [UInt8] = []
        for _ in 0..<4 { withUnsafeBytes(of: random.next()) { key += $0 } }
        self.key = key
        self.lifetime = lifetime
    }

    func issue(for client: STUNAddress, now: Duration) -> String {
        let expiry = UInt64(clamping: (now + lifetime).components.seconds)
        return Self.hex(expiry) + mac(expiry: expiry, client: client)
    }

    enum Check { case valid, stale }

    func check(_ nonce: String, from client: STUNAddress, now: Duration) -> Check {
        let text = Array(nonce.utf8)
        guard text.count == 40, let expiry = UInt64(String(decoding: text.prefix(16), as: UTF8.self), radix: 16),
              RESTCredential.constantTimeEqual(Array(text.suffix(24)), Array(mac(expiry: expiry, client: client).utf8)),
              Int64(clamping: expiry) > now.components.seconds
        else { return .stale }
        return .valid
    }

    private func mac(expiry: UInt64, client: STUNAddress) -> String {
        var writer = ByteWriter(capacity: 32)
        writer.writeU64(expiry)
        writer.write(client.ip)
        writer.writeU16(client.port)
        let digest = RESTCredential.hmacSHA1(key: key, data: writer.bytes) ?? []
        return Hex.encode(digest.prefix(12))
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 16 - digits.count)) + digits
    }
}

import Wire

/// TURN REST API credentials (draft-uberti-behave-turn-rest-00 §2.2), the
/// scheme `chatcli serve` issues and its relay checks: the username is
/// `"<expiry unix seconds>:<id>"` and the password is
/// `base64(HMAC-SHA1(shared secret, username))`, so a relay needs no user
/// table, only the secret.
public enum RESTCredential {
    /// The password for `username` under `secret`; `nil` for an empty
    /// secret or if OpenSSL fails.
    public static func password(secret: [UInt8], username: String) -> String? {
        guard !secret.isEmpty, let mac = hmacSHA1(key: secret, data: Array(username.utf8)) else { return nil }
        return Base64.encode(mac)
    }

    /// The expiry of a REST username, `nil` unless it starts with decimal
    /// digits and a colon.
    public static func expiry(of username: String) -> Int64? {
        guard let colon = username.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let digits = username.utf8[..<colon]
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(String(decoding: digits, as: UTF8.self))
    }

    /// HMAC-SHA1 (RFC 2104), also what a relay keys its stateless nonces with.
    public static func hmacSHA1(key: [UInt8], data: [UInt8]) -> [UInt8]? {
        Digest.hmac(.sha1, key: key, data: data)
    }

    /// Compares MACs without leaking through timing where they differ.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        Digest.constantTimeEqual(a, b)
    }
}

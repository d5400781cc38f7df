/// The HMAC key for MESSAGE-INTEGRITY and MESSAGE-INTEGRITY-SHA256
/// (RFC 8489 §9).
///
/// Passwords are taken as given: RFC 8489 asks for OpaqueString (RFC 8265)
/// preparation, which for ASCII ICE passwords and TURN REST credentials is
/// the identity; callers with other input must prepare it themselves.
public struct STUNKey: Hashable, Sendable {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Short-term credentials (ICE): the key is the password itself (§9.1.1).
    public static func shortTerm(password: String) -> STUNKey {
        STUNKey(bytes: Array(password.utf8))
    }

    /// Long-term credentials (TURN): MD5(username ":" realm ":" password)
    /// (§9.2.2). `nil` only when OpenSSL refuses MD5 (a FIPS-only build).
    public static func longTerm(username: String, realm: String, password: String) -> STUNKey? {
        Digest.hash(.md5, Array("\(username):\(realm):\(password)".utf8)).map(STUNKey.init(bytes:))
    }

    /// Long-term key for PASSWORD-ALGORITHM SHA-256 (§9.2.2, §18.5):
    /// SHA-256(username ":" OpaqueString(realm) ":" OpaqueString(password)).
    public static func longTermSHA256(username: String, realm: String, password: String) -> STUNKey? {
        Digest.hash(.sha256, Array("\(username):\(realm):\(password)".utf8)).map(STUNKey.init(bytes:))
    }
}

import CSodium
import Wire

/// What a `_chatcli._udp` TXT record says about its chat without giving
/// the code away: a random salt and `proof = Argon2id(code, salt)`. The
/// joiner, who knows the code, recomputes the proof for each chat it
/// hears; a passive listener must brute-force the code space with a
/// memory-hard hash per chat (the salt is fresh for every chat), about
/// 10^6 × 20 ms = 5 CPU-hours, far longer than a chat waits.
public struct LANProof: Hashable, Sendable {
    public let salt: [UInt8]
    public let proof: [UInt8]

    static let saltSize = 16
    static let proofSize = 16
    /// Argon2id, one pass over 16 MiB: about 20 ms here.
    static let opsLimit: UInt64 = 1
    static let memLimit = 16 << 20

    /// A fresh proof of `code` (the 6-digit locator).
    public static func make(code: String) -> LANProof? {
        var salt = [UInt8](repeating: 0, count: saltSize)
        randombytes_buf(&salt, saltSize)
        return derive(code: code, salt: salt).map { LANProof(salt: salt, proof: $0) }
    }

    /// Whether `code` is the one this proof was made from.
    public func matches(code: String) -> Bool {
        guard let candidate = Self.derive(code: code, salt: salt) else { return false }
        return candidate.count == proof.count && sodium_memcmp(candidate, proof, proof.count) == 0
    }

    static func derive(code: String, salt: [UInt8]) -> [UInt8]? {
        guard salt.count == saltSize, sodium_init() >= 0 else { return nil }
        var out = [UInt8](repeating: 0, count: proofSize)
        let password = Array(("chatcli-lan-v1:" + code).utf8)
        let rc = password.withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { chars in
                crypto_pwhash(&out, UInt64(proofSize), chars.baseAddress!, UInt64(chars.count), salt, opsLimit, memLimit,
                              crypto_pwhash_alg_argon2id13())
            }
        }
        return rc == 0 ? out : nil
    }

    /// TXT values: `salt` and `proof` in lowercase hex.
    public var txt: [String: String] { ["salt": Hex.encode(salt), "proof": Hex.encode(proof)] }

    public init?(txt: [String: String]) {
        guard let salt = txt["salt"].flatMap(Hex.decode), let proof = txt["proof"].flatMap(Hex.decode),
              salt.count == Self.saltSize, proof.count == Self.proofSize else { return nil }
        self.init(salt: salt, proof: proof)
    }

    init(salt: [UInt8], proof: [UInt8]) {
        self.salt = salt
        self.proof = proof
    }
}

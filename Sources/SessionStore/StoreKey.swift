/// A key derived from the passphrase, with the salt and Argon2id parameters
/// it came from: a rewrite reuses it with a fresh nonce without running
/// Argon2 again, and the keyring caches it so the passphrase is typed at
/// most once per login session (``StoreKeyCache``).
public struct StoreKey {
    public let key: SecureBytes
    public let salt: [UInt8]
    public let kdf: KDFParameters
}

/// What unlocks the store: the passphrase itself (Argon2id runs), or a key
/// derived from it earlier, which opens only the file it was derived for.
public enum StoreCredential {
    case passphrase(SecureBytes)
    case key(StoreKey)

    func open(_ file: [UInt8]) throws(SessionStoreError) -> (StoreContents, StoreKey) {
        switch self {
        case .passphrase(let passphrase): try StoreFormat.open(file, passphrase: passphrase)
        case .key(let key): try StoreFormat.open(file, key: key)
        }
    }
}

import CKeyutils
import CSodium
import Glibc

/// The unlocked store key, kept in the kernel's key retention service
/// (keyrings(7)) so the passphrase is typed at most once per login session,
/// as `sudo` and `gpg-agent` cache credentials.
///
/// The key is a "user" key in the session keyring, named after the store's
/// path: only processes of this user in this login session possess it, it is
/// never swapped to disk (the kernel holds it), and it expires after
/// `timeout` seconds without use (each use restarts the clock). `chatcli lock`
/// invalidates it; a new login session has a new session keyring and asks
/// again. What is cached is the Argon2id output with its salt, not the
/// passphrase: it opens this store file and nothing else, and re-keying the
/// store (`sessions passwd`) makes it useless.
public struct StoreKeyCache: Sendable {
    public let description: String
    public let timeout: UInt32

    /// Keys live this long without use: a working day.
    public static let defaultTimeout: UInt32 = 8 * 3600

    public init(storePath: String, timeout: UInt32 = Self.defaultTimeout) {
        description = "chatcli:store:" + storePath
        self.timeout = timeout
    }

    static let version: UInt8 = 1
    static let keySize = 32

    /// The cached key, its expiry restarted; nil when none (or unreadable).
    public func load() -> StoreKey? {
        let id = keyctl_search(KEY_SPEC_SESSION_KEYRING, "user", description, 0)
        guard id > 0 else { return nil }
        var buffer: UnsafeMutableRawPointer?
        let n = keyctl_read_alloc(key_serial_t(id), &buffer)
        guard n >= 0, let buffer else { return nil }
        defer {
            sodium_memzero(buffer, Int(n))
            free(buffer)
        }
        let bytes = UnsafeRawBufferPointer(start: buffer, count: Int(n))
        guard let key = Self.decode(bytes) else { return nil }
        _ = keyctl_set_timeout(key_serial_t(id), timeout)
        return key
    }

    /// Caches `key`, replacing an older one; false when the kernel refused
    /// (no keyring support): the chat goes on, the passphrase is asked next time.
    @discardableResult
    public func save(_ key: StoreKey) -> Bool {
        guard timeout > 0 else { return false }
        let payload = Self.encode(key)
        defer { payload.wipe() }
        let id = payload.withPointer { p, n in add_key("user", description, p, n, KEY_SPEC_SESSION_KEYRING) }
        guard id > 0 else { return false }
        // Possessor (this login session) may do everything; nobody else may even view it.
        _ = keyctl_setperm(id, key_perm_t(KEY_POS_ALL))
        return keyctl_set_timeout(id, timeout) == 0
    }

    /// Forgets the cached key; true when there was one.
    @discardableResult
    public func drop() -> Bool {
        let id = keyctl_search(KEY_SPEC_SESSION_KEYRING, "user", description, 0)
        guard id > 0 else { return false }
        return keyctl_invalidate(key_serial_t(id)) == 0 || keyctl_unlink(key_serial_t(id), KEY_SPEC_SESSION_KEYRING) == 0
    }

    /// version(1) · opsLimit(4, BE) · memLimit(8, BE) · salt length(1) · salt · key.
    static func encode(_ key: StoreKey) -> SecureBytes {
        var head: [UInt8] = [version]
        head += withUnsafeBytes(of: key.kdf.opsLimit.bigEndian, Array.init)
        head += withUnsafeBytes(of: key.kdf.memLimit.bigEndian, Array.init)
        head.append(UInt8(key.salt.count))
        head += key.salt
        let out = SecureBytes(count: 0, capacity: head.count + key.key.count)
        for byte in head { _ = out.append(byte) }
        key.key.withPointer { p, n in
            for i in 0..<n { _ = out.append(p[i]) }
        }
        return out
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) -> StoreKey? {
        guard bytes.count > 14, bytes[0] == version else { return nil }
        var ops: UInt32 = 0
        var mem: UInt64 = 0
        for i in 1..<5 { ops = ops << 8 | UInt32(bytes[i]) }
        for i in 5..<13 { mem = mem << 8 | UInt64(bytes[i]) }
        let saltCount = Int(bytes[13])
        guard bytes.count == 14 + saltCount + keySize else { return nil }
        let salt = Array(bytes[14..<(14 + saltCount)])
        let key = SecureBytes(copying: bytes.baseAddress! + 14 + saltCount, count: keySize)
        let kdf = KDFParameters(opsLimit: ops, memLimit: mem)
        guard kdf.isAcceptable else { return nil }
        return StoreKey(key: key, salt: salt, kdf: kdf)
    }
}

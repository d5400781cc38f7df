/// The passphrase-locked local store of chat sessions.
///
/// One file, `sessions.v1`, in `$XDG_DATA_HOME/chatcli/` (else
/// `~/.local/share/chatcli/`; directory 0700, file 0600). It holds a small
/// binary header (magic, format version, Argon2id parameters, salt, nonce, key
/// check) followed by the session list as JSON sealed with
/// XChaCha20-Poly1305, the whole header being the additional data. Nothing is
/// ever on disk in plaintext, and there is no message history in it at all.
///
/// Every change is a read-modify-write under an exclusive `flock` on
/// `sessions.lock`, replaced atomically (temp file, fsync, rename, fsync of the
/// directory), so concurrent `chatcli` processes never lose an update and a
/// crash leaves either the old or the new file. Any failure leaves the old
/// file as it was.
///
/// ```swift
/// let store = SessionStore(directory: SessionStore.defaultDirectory(environment: env) ?? "...")
/// try store.withLockedStore(passphrase: pass) { contents throws(SessionStoreError) in
///     try contents.add(record)
/// }
/// ```
public struct SessionStore: Sendable {
    public let directory: String
    public let kdf: KDFParameters
    public let lockTimeout: Double

    public static let fileName = "sessions.v1"
    public static let lockFileName = "sessions.lock"

    public var path: String { directory + "/" + Self.fileName }
    public var lockPath: String { directory + "/" + Self.lockFileName }

    /// - Parameters:
    ///   - kdf: Argon2id parameters for new stores and re-keying (tests pass
    ///     ``KDFParameters/minimum``); existing files use their header's.
    ///   - lockTimeout: seconds to wait for another process's lock.
    public init(directory: String, kdf: KDFParameters = .interactive, lockTimeout: Double = 10) {
        self.directory = directory
        self.kdf = kdf
        self.lockTimeout = lockTimeout
    }

    /// `$XDG_DATA_HOME/chatcli` if that is an absolute path, else
    /// `$HOME/.local/share/chatcli`; nil without either.
    public static func defaultDirectory(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") { return xdg + "/chatcli" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.local/share/chatcli" }
        return nil
    }

    /// Whether a store file exists (no passphrase needed).
    public var exists: Bool { FileIO.exists(path) }

    /// Reads the store under a shared lock; an absent store is empty.
    public func read(passphrase: SecureBytes) throws(SessionStoreError) -> StoreContents {
        try unlock(.passphrase(passphrase)).contents
    }

    /// Reads the store under a shared lock and returns the key that opened
    /// it, for the keyring's cache. An absent store is empty and has no key yet.
    public func unlock(_ credential: StoreCredential) throws(SessionStoreError) -> (contents: StoreContents, key: StoreKey?) {
        guard FileIO.exists(directory) else { return (StoreContents(), nil) }
        let lock = try FileLock(path: lockPath, exclusive: false, timeout: lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        guard let bytes = try FileIO.readFile(path) else { return (StoreContents(), nil) }
        let (contents, key) = try credential.open(bytes)
        return (contents, key)
    }

    /// A key for a store that does not exist yet: Argon2id over `passphrase`
    /// with a fresh salt. The store's first write uses it.
    public func newKey(passphrase: SecureBytes) throws(SessionStoreError) -> StoreKey {
        guard !passphrase.isEmpty else { throw .passphraseEmpty }
        return try StoreFormat.newKeying(passphrase: passphrase, kdf: kdf)
    }

    public func withLockedStore<R>(
        passphrase: SecureBytes, _ body: (inout StoreContents) throws(SessionStoreError) -> R
    ) throws(SessionStoreError) -> R {
        try withLockedStore(.passphrase(passphrase), body)
    }

    /// Reads the store under the exclusive lock, lets `body` change it, and
    /// writes it back if it changed (fresh nonce). If `body` throws, nothing
    /// is written. An absent store is created on the first change.
    public func withLockedStore<R>(
        _ credential: StoreCredential, _ body: (inout StoreContents) throws(SessionStoreError) -> R
    ) throws(SessionStoreError) -> R {
        try FileIO.ensureDirectory(directory)
        let lock = try FileLock(path: lockPath, exclusive: true, timeout: lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        FileIO.removeStaleTemps(for: path)

        var contents = StoreContents()
        var keying: StoreKey?
        if let bytes = try FileIO.readFile(path) {
            (contents, keying) = try credential.open(bytes)
        }
        let original = contents
        let result = try body(&contents)
        guard contents != original else { return result }
        switch credential {
        case .passphrase(let passphrase): try write(contents, keying: try upgraded(keying, passphrase: passphrase))
        // A cached key keeps the file's parameters: raising them needs the passphrase.
        case .key(let key): try write(contents, keying: keying ?? key)
        }
        return result
    }

    /// Re-keys the store: decrypts with `old`, encrypts with `new` under a
    /// fresh salt (and the current KDF parameters). A wrong `old` changes nothing.
    public func passwd(old: SecureBytes, new: SecureBytes) throws(SessionStoreError) {
        guard !new.isEmpty else { throw .passphraseEmpty }
        try FileIO.ensureDirectory(directory)
        let lock = try FileLock(path: lockPath, exclusive: true, timeout: lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        FileIO.removeStaleTemps(for: path)
        var contents = StoreContents()
        var oldKDF = kdf
        if let bytes = try FileIO.readFile(path) {
            let (c, k) = try StoreFormat.open(bytes, passphrase: old)
            contents = c
            oldKDF = k.kdf
        }
        let strongest = KDFParameters(
            opsLimit: max(oldKDF.opsLimit, kdf.opsLimit), memLimit: max(oldKDF.memLimit, kdf.memLimit))
        try write(contents, keying: try StoreFormat.newKeying(passphrase: new, kdf: strongest))
    }

    /// Deletes the store, any temp files, the lock file and the session
    /// locks. Irreversible.
    public func erase() throws(SessionStoreError) {
        guard FileIO.exists(directory) else { return }
        do {
            let lock = try FileLock(path: lockPath, exclusive: true, timeout: lockTimeout)
            defer { withExtendedLifetime(lock) {} }
            FileIO.removeStaleTemps(for: path)
            try FileIO.remove(path)
            try FileIO.remove(lockPath)
            SessionLock.removeAll(in: locksDirectory)
        }
        FileIO.syncDirectory(of: path)
    }

    // MARK: internals

    /// Keeps the existing key unless the configured parameters are stronger
    /// than the file's; then a fresh salt and the stronger parameters.
    private func upgraded(_ keying: StoreKey?, passphrase: SecureBytes) throws(SessionStoreError)
        -> StoreKey
    {
        guard let keying else { return try StoreFormat.newKeying(passphrase: passphrase, kdf: kdf) }
        if keying.kdf.opsLimit >= kdf.opsLimit && keying.kdf.memLimit >= kdf.memLimit { return keying }
        let strongest = KDFParameters(
            opsLimit: max(keying.kdf.opsLimit, kdf.opsLimit), memLimit: max(keying.kdf.memLimit, kdf.memLimit))
        return try StoreFormat.newKeying(passphrase: passphrase, kdf: strongest)
    }

    /// Seals and atomically replaces the file. Call with the exclusive lock held.
    func write(_ contents: StoreContents, keying: StoreKey) throws(SessionStoreError) {
        try FileIO.writeAtomically(StoreFormat.seal(contents, keying: keying), to: path)
    }
}

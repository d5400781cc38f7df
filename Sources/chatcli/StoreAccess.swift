import Glibc
import SessionStore

/// A failed command: one sentence for stderr and the exit status
/// (2 for usage errors, 1 for everything else).
struct CommandFailure: Error {
    let message: String
    let status: Int32

    static func usage(_ error: UsageError) -> CommandFailure { CommandFailure(message: error.message, status: 2) }
    /// Ctrl-C at a passphrase prompt exits 130, as Ctrl-C anywhere else does.
    static func store(_ error: SessionStoreError) -> CommandFailure {
        CommandFailure(message: error.description, status: error == .passphraseInterrupted ? 130 : 1)
    }
}

/// The session store with its passphrase, as the CLI opens it.
///
/// The passphrase comes from `--passphrase-fd N`, else `CHATCLI_PASSPHRASE`,
/// else a no-echo prompt, but only when stdin and stderr are both terminals:
/// a script is never left waiting for a passphrase (WireProtocol §4). A new
/// store's passphrase is asked twice on a terminal. It stays in locked,
/// zeroed-on-release memory while the command runs, because the store is
/// rewritten at each session transition.
final class StoreAccess {
    let store: SessionStore
    let credential: StoreCredential

    init(store: SessionStore, credential: StoreCredential) {
        self.store = store
        self.credential = credential
    }

    /// Why a session cannot be saved, or the opened store with its contents,
    /// or (a chat at a terminal with no cached key) a store whose passphrase
    /// is asked after the code is shown, while waiting for the peer.
    enum Opening {
        case notSaving(reason: String)
        case opened(StoreAccess, StoreContents)
        case askLater(SessionStore)
    }

    /// The keyring's cache for `store`, unless CHATCLI_KEY_CACHE_SECONDS=0 turns it off.
    static func keyCache(for store: SessionStore) -> StoreKeyCache? {
        var timeout = StoreKeyCache.defaultTimeout
        if let text = getenv("CHATCLI_KEY_CACHE_SECONDS").map({ String(cString: $0) }) {
            guard let seconds = UInt32(text), seconds > 0 else { return nil }
            timeout = seconds
        }
        return StoreKeyCache(storePath: store.path, timeout: timeout)
    }

    /// The store opened with the key cached in this login session, if there
    /// is one and it still opens the store (a stale one is dropped).
    static func openCached(_ store: SessionStore) -> Opening? {
        guard let cache = keyCache(for: store), let key = cache.load() else { return nil }
        do {
            let (contents, _) = try store.unlock(.key(key))
            return .opened(StoreAccess(store: store, credential: .key(key)), contents)
        } catch {
            cache.drop()
            return nil
        }
    }

    /// The store in the default directory; nil without `$XDG_DATA_HOME` or `$HOME`.
    static func defaultStore() -> SessionStore? {
        var environment: [String: String] = [:]
        for name in ["XDG_DATA_HOME", "HOME"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return SessionStore.defaultDirectory(environment: environment).map { SessionStore(directory: $0) }
    }

    /// Opens (or, on first use, prepares) the store, reading it once to
    /// check the passphrase (see ``unlock(_:with:unsavedAllowed:)`` for the
    /// terminal's retries). `unsavedAllowed`: the command can go on without
    /// the store (create, join), so an empty passphrase offers that.
    ///
    /// On a terminal, a key cached in this login session opens the store
    /// without a question; `askLater` (an interactive chat) asks nothing
    /// now when there is none: the chat asks once the code is on screen.
    static func open(_ args: ParsedArguments, unsavedAllowed: Bool = false, askLater: Bool = false) throws(CommandFailure)
        -> Opening
    {
        guard let store = defaultStore() else {
            return .notSaving(reason: "neither XDG_DATA_HOME nor HOME is set")
        }
        guard let source = try source(args, option: "passphrase-fd", environment: PassphraseSource.environmentVariable)
        else {
            return .notSaving(reason: "no passphrase: set CHATCLI_PASSPHRASE, use --passphrase-fd N, or run on a terminal")
        }
        // A passphrase given by a script is used as given, never the cache.
        guard source == .terminal else { return try unlock(store, with: source, unsavedAllowed: unsavedAllowed) }
        if let cached = openCached(store) { return cached }
        if askLater { return .askLater(store) }
        return try unlock(store, with: source, unsavedAllowed: unsavedAllowed)
    }

    /// Where a passphrase comes from: the fd option, the environment variable,
    /// or the terminal when stdin and stderr are both terminals; else nil.
    static func source(_ args: ParsedArguments, option: String, environment: String) throws(CommandFailure)
        -> PassphraseSource?
    {
        if let text = args.value(option) {
            guard let fd = Int32(text), fd >= 0 else {
                throw .usage(UsageError(message: "--\(option) takes a file descriptor number, not '\(text)'"))
            }
            return .fileDescriptor(fd)
        }
        if getenv(environment) != nil { return .environment(name: environment) }
        return isatty(0) == 1 && isatty(2) == 1 ? .terminal : nil
    }

    /// Runs one read-modify-write transaction.
    func update<R>(_ body: (inout StoreContents) throws(SessionStoreError) -> R) throws(SessionStoreError) -> R {
        try store.withLockedStore(credential, body)
    }
}

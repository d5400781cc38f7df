import ChatClient
import SessionStore

/// Unlocking the store with a passphrase, forgiving on a terminal: a typo
/// gets another try (three in all), a new passphrase typed differently
/// twice is asked again, and Enter alone means "no passphrase" rather than
/// an error. Descriptors and the environment get no second chance: a script
/// that passes a wrong passphrase must fail at once, not hang on a retry.
extension StoreAccess {
    static let tries = 3

    static func unlock(_ store: SessionStore, with source: PassphraseSource, unsavedAllowed: Bool) throws(CommandFailure)
        -> Opening
    {
        let onTerminal = source == .terminal
        var retry: String?
        for attempt in 1...tries {
            let last = attempt == tries
            let passphrase: SecureBytes
            do {
                passphrase = store.exists
                    ? try source.read(prompt: retry ?? "Session store passphrase: ")
                    : try source.readNew(prompt: retry ?? "New session store passphrase (protects saved sessions): ")
            } catch .passphraseEmpty where onTerminal {
                guard unsavedAllowed else {
                    throw CommandFailure(message: "no passphrase given, so the session store stays locked", status: 1)
                }
                do {
                    if try source.confirm("Go on without saving this session? [Y/n] ", defaultAnswer: true) {
                        return .notSaving(reason: "no passphrase given")
                    }
                } catch {
                    throw .store(error)
                }
                retry = nil
                if last { throw CommandFailure(message: "no passphrase given, so the session store stays locked", status: 1) }
                continue
            } catch .passphraseMismatch where onTerminal && !last {
                retry = "The two entries differ. New session store passphrase (try \(attempt + 1) of \(tries)): "
                continue
            } catch {
                throw .store(error)
            }
            do {
                let (contents, key) = try store.unlock(.passphrase(passphrase))
                guard onTerminal else { return .opened(StoreAccess(store: store, credential: .passphrase(passphrase)), contents) }
                // Typed at a terminal: the derived key is cached for this login session.
                let unlocked = if let key { key } else { try store.newKey(passphrase: passphrase) }
                keyCache(for: store)?.save(unlocked)
                return .opened(StoreAccess(store: store, credential: .key(unlocked)), contents)
            } catch .wrongPassphrase where onTerminal && !last {
                retry = "Wrong passphrase. Session store passphrase (try \(attempt + 1) of \(tries)): "
            } catch .wrongPassphrase where onTerminal && unsavedAllowed {
                // Three wrong tries: the chat can still go on, unsaved.
                do {
                    if try source.confirm("Wrong passphrase three times. Go on without saving this session? [Y/n] ", defaultAnswer: true) {
                        return .notSaving(reason: "the passphrase was wrong three times")
                    }
                } catch {
                    throw .store(error)
                }
                throw .store(.wrongPassphrase)
            } catch {
                throw .store(error)
            }
        }
        throw .store(.wrongPassphrase)  // not reached: the last try returns or throws
    }
}

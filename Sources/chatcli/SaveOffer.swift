import ChatClient
import ChatRuntime
import Runtime
import SessionStore
import Terminal

/// Saving a chat for `resume` when no key is cached in this login session
/// (a first run, or the first chat since login): nothing is asked before the
/// code. Once the room exists the chat's prompt line asks for the store's
/// passphrase (a new one, twice, on a first run), Enter skips, and pairing
/// goes on meanwhile; the session updates seen so far are saved once the
/// store is open, and the key is cached for the rest of the login session.
final class SaveOffer {
    let store: SessionStore
    let name: String?
    let server: String
    let expiresIn: Int?
    var updates: [ChatManager.SessionUpdate] = []
    weak var manager: ChatManager?
    var chat: InteractiveChat?
    var caFile: String?
    var loop: EventLoop?
    private var asked = false
    private var wrongTries = 0
    /// A new passphrase's first entry, until it is typed again.
    private var firstEntry: SecureBytes?
    static let tries = 3

    init(store: SessionStore, name: String?, server: String, expiresIn: Int?) {
        self.store = store
        self.name = name
        self.server = server
        self.expiresIn = expiresIn
    }

    func attach(to manager: ChatManager, caFile: String?, loop: EventLoop) {
        self.manager = manager
        self.caFile = caFile
        self.loop = loop
        manager.onSession = { [weak self] update in
            guard let self else { return }
            self.updates.append(update)
            self.askOnce()
        }
    }

    /// Asks once the room exists (its code is on screen) and the chat runs.
    func askOnce() {
        guard !asked, chat != nil, !updates.isEmpty else { return }
        asked = true
        ask(store.exists
            ? "Store passphrase to save this chat for 'chatcli resume' (Enter to skip): "
            : "New passphrase to save this chat for 'chatcli resume' (Enter to skip): ")
    }

    private func ask(_ question: String) {
        chat?.askSecret(question) { [weak self] typed in self?.answered(typed) }
    }

    private func answered(_ typed: SecureBytes?) {
        guard let typed else {
            firstEntry = nil
            chat?.notice("Not saved: this chat cannot be resumed if it is cut off.")
            return
        }
        if store.exists { return unlock(typed) }
        guard let first = firstEntry else {
            firstEntry = SecureBytes(copying: typed.withUnsafeBytes { Array($0) })
            return ask("Type the new passphrase again: ")
        }
        firstEntry = nil
        guard first.constantTimeEquals(typed) else {
            return ask("The two entries differ. New passphrase to save this chat (Enter to skip): ")
        }
        do {
            open(StoreContents(), key: try store.newKey(passphrase: typed))
        } catch {
            chat?.notice("Not saved: \(error).")
        }
    }

    private func unlock(_ typed: SecureBytes) {
        do {
            let (contents, key) = try store.unlock(.passphrase(typed))
            if let key { return open(contents, key: key) }
            open(contents, key: try store.newKey(passphrase: typed))
        } catch .wrongPassphrase {
            wrongTries += 1
            guard wrongTries < Self.tries else {
                chat?.notice("Not saved: the passphrase was wrong \(Self.tries) times; the chat goes on.")
                return
            }
            ask("Wrong passphrase. Store passphrase (try \(wrongTries + 1) of \(Self.tries); Enter to skip): ")
        } catch {
            chat?.notice("Not saved: \(error).")
        }
    }

    private func open(_ contents: StoreContents, key: StoreKey) {
        guard let manager, let loop else { return }
        StoreAccess.keyCache(for: store)?.save(key)
        var requested = name
        if let name, contents.find(name: name) != nil {
            chat?.notice("A saved session is already named \"\(name)\": this one is saved under its code instead.")
            requested = nil
        }
        let recorder = SessionRecorder(store: store, credential: .key(key), server: server, queued: contents.pendingPurges,
                                       requestedName: requested, expiresIn: expiresIn)
        recorder.attach(to: manager, caFile: caFile, loop: loop)
        let seen = updates
        updates = []
        for update in seen { manager.onSession?(update) }
        if let saved = recorder.name {
            manager.options.notice = nil   // said here, not again when connected
            chat?.notice("Saved as session \"\(saved)\"; if this chat is cut off, continue it with: chatcli resume \(saved)")
        }
    }
}

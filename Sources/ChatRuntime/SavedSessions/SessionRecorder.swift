import ChatClient
import Glibc
import Runtime
import SessionStore

/// Saves one chat's session record at its transitions (created → pending,
/// accepted, closed) and nowhere else: each write runs Argon2id on purpose.
/// Messages are never saved. A failed save is reported and the chat goes on.
///
/// It lives in ChatClient, next to the `ChatManager` whose `onSession`
/// updates it records; the CLI only decides whether to save and opens the store.
public final class SessionRecorder {
    let store: SessionStore
    /// Kept for the whole chat: the store is rewritten at each transition.
    let credential: StoreCredential
    let server: String
    /// The name the user asked for (`--name`), else the code is used.
    let requestedName: String?
    /// `--expires`, for a server that sends no `exp`.
    let expiresIn: Int?
    /// Purges that failed before, retried while this chat runs.
    let queued: [String: [String]]
    /// The record's name once it exists (set at once when resuming).
    public private(set) var name: String?
    /// The chat's DTLS certificate and key, saved with a new record (the manager's, from `attach`).
    var identity: SessionRecord.Identity?
    /// Marks the session open in this process, so that a `chatcli resume`
    /// of it elsewhere is refused; held as long as the recorder lives.
    public private(set) var lock: SessionLock?
    /// A sentence for the user when a save fails (the chat goes on);
    /// `attach` sends it through the chat's events.
    public var warn: (String) -> Void = { _ in }

    public convenience init(store: SessionStore, passphrase: SecureBytes, server: String, queued: [String: [String]],
                requestedName: String? = nil, expiresIn: Int? = nil, existingName: String? = nil, lock: SessionLock? = nil) {
        self.init(store: store, credential: .passphrase(passphrase), server: server, queued: queued,
                  requestedName: requestedName, expiresIn: expiresIn, existingName: existingName, lock: lock)
    }

    public init(store: SessionStore, credential: StoreCredential, server: String, queued: [String: [String]],
                requestedName: String? = nil, expiresIn: Int? = nil, existingName: String? = nil, lock: SessionLock? = nil) {
        self.store = store
        self.credential = credential
        self.server = server
        self.queued = queued
        self.requestedName = requestedName
        self.expiresIn = expiresIn
        self.name = existingName
        self.lock = lock
    }

    /// Hooks into the manager, and retries queued purges in the background.
    public func attach(to manager: ChatManager, caFile: String?, loop: EventLoop) {
        // Shown like the chat's other notices: never into the prompt line.
        warn = { [weak manager] in manager?.onEvent(.notice($0)) }
        identity = manager.certificate.map { SessionRecord.Identity(certificate: $0.derBytes, privateKey: $0.privateKeyDER) }
        manager.options.sessionName = name
        manager.onSession = { [weak self, weak manager] update in
            guard let self, let saved = self.record(update) else { return }
            manager?.options.sessionName = saved
            manager?.options.notice = "Saved as session \"\(saved)\"; if this chat is cut off, continue it with: chatcli resume \(saved)"
        }
        guard !queued.isEmpty else { return }
        Purger.purge(queued, caFile: caFile, loop: loop) { [weak self, store, credential, queued] outcomes in
            var lines: [String] = []
            do {
                try store.withLockedStore(credential) { contents throws(SessionStoreError) in
                    lines = PurgeReport.settleQueue(queued, outcomes, in: &contents)
                }
            } catch {
                lines = ["chatcli: could not update the queued purges: \(error)"]
            }
            for line in lines { self?.warn(line) }
        }
    }

    /// Applies one update; returns the new record's name when one was added.
    public func record(_ update: ChatManager.SessionUpdate) -> String? {
        let now = Int(time(nil))
        do {
            switch update {
            case .pending(let code, let deviceID, let expires):
                let expiry = expires.flatMap(Timestamp.parseISO8601) ?? expiresIn.map { now + $0 }
                return try add(code: code, deviceID: deviceID) { name in
                    SessionRecord(name: name, serverURL: server, code: code, role: .creator, status: .pending,
                                  created: now, expires: expiry, deviceIDs: [deviceID], identity: identity)
                }
            case .joined(let code, let roomID, let deviceID, let expires):
                return try add(code: code, deviceID: deviceID) { name in
                    SessionRecord(name: name, serverURL: server, code: code, roomID: roomID, role: .joiner, status: .accepted,
                                  created: now, expires: expires.flatMap(Timestamp.parseISO8601), deviceIDs: [deviceID], identity: identity)
                }
            case .accepted(let roomID):
                try setStatus(.accepted, roomID: roomID)
            case .closed:
                try setStatus(.closed, roomID: nil)
            case .peerPinned(let pin):
                try change { $0.peer = pin }
            case .group(let entry):
                // The whole code is kept: a member back after a crash proves it to every other member again.
                let code = entry.secret.map { "\(entry.locator)-\($0)" } ?? entry.locator
                let group = SessionRecord.Group(memberID: entry.seat.memberID.rawValue, max: entry.seat.max)
                return try add(code: code, deviceID: entry.deviceID) { name in
                    // The role says whether the whole code was typed (a joiner) or made here.
                    SessionRecord(name: name, serverURL: server, code: code, roomID: entry.roomID,
                                  role: entry.typedSecret ? .joiner : .creator, status: .accepted,
                                  created: now, expires: entry.expires.flatMap(Timestamp.parseISO8601), deviceIDs: [entry.deviceID],
                                  identity: identity, group: group)
                }
            }
        } catch {
            warn("chatcli: could not save the session: \(error)")
        }
        return nil
    }

    private func add(code: String, deviceID: String, _ make: (String) -> SessionRecord) throws(SessionStoreError) -> String {
        let name = try store.withLockedStore(credential) { contents throws(SessionStoreError) in
            // The name was checked before the room existed; another chatcli may have taken it since.
            let name = contents.uniqueName(base: requestedName ?? String(code.prefix(6)))
            try contents.add(make(name))
            return name
        }
        self.name = name
        do {
            // The device id is fresh, so nobody else can hold this lock; a
            // failure (a read-only directory) only loses the protection.
            lock = try store.lockSession(deviceID: deviceID, name: name)
        } catch {
            warn("chatcli: could not mark session \"\(name)\" as open: \(error)")
        }
        return name
    }

    private func setStatus(_ status: SessionRecord.Status, roomID: String?) throws(SessionStoreError) {
        try change { record in
            record.status = status
            if let roomID { record.roomID = roomID }
            // Once paired, the code's secret part is no longer kept (a group's, until it closes).
            if record.group == nil || status == .closed { record.code = String(record.code.prefix(6)) }
        }
    }

    private func change(_ edit: (inout SessionRecord) -> Void) throws(SessionStoreError) {
        guard let name else { return }
        do {
            try store.withLockedStore(credential) { contents throws(SessionStoreError) in
                try contents.update(name: name, edit)
            }
        } catch .unknownSession {
            // Removed with `chatcli sessions rm` while the chat ran: nothing left to update.
        }
    }
}

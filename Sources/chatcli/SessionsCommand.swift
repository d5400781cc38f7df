import ChatClient
import ChatRuntime
import Glibc
import SessionStore
import Terminal

/// `chatcli sessions` (list), `rename`, `rm`, `erase` and `passwd`. Every
/// command that opens the store first retries the purges queued in it.
enum SessionsCommand {
    static func run(_ command: String, _ args: ParsedArguments) -> Int32 {
        do {
            switch command {
            case "sessions rename": return try rename(args)
            case "sessions rm": return try remove(args)
            case "sessions erase": return try erase(args)
            case "sessions passwd": return try passwd(args)
            default: return try list(args)
            }
        } catch {
            Output.write("chatcli: \(error.message)\n", to: 2)
            return error.status
        }
    }

    /// The opened store, or nil when there is none yet (no passphrase is asked then).
    static func open(_ args: ParsedArguments) throws(CommandFailure) -> (StoreAccess, StoreContents)? {
        guard let store = StoreAccess.defaultStore(), store.exists else { return nil }
        guard case .opened(let access, let contents) = try StoreAccess.open(args) else {
            throw .store(.passphraseUnavailable)
        }
        return (access, contents)
    }

    /// Runs one transaction that also settles the retried queue.
    static func update(_ access: StoreAccess, queued: [String: [String]], _ outcomes: [String: Purger.Outcome],
                       _ body: (inout StoreContents) throws(SessionStoreError) -> Void) throws(CommandFailure) {
        var lines: [String] = []
        do {
            try access.update { c throws(SessionStoreError) in
                try body(&c)
                lines = PurgeReport.settleQueue(queued, outcomes, in: &c)
            }
        } catch {
            throw .store(error)
        }
        for line in lines { Output.write(line + "\n", to: 2) }
    }

    static func list(_ args: ParsedArguments) throws(CommandFailure) -> Int32 {
        guard let (access, contents) = try open(args) else {
            if !args.has("json") { Output.write("No saved sessions.\n", to: 1) }
            return 0
        }
        let outcomes = Purger.purgeNow(contents.pendingPurges, caFile: args.value("ca-file"))
        if !outcomes.isEmpty { try update(access, queued: contents.pendingPurges, outcomes) { _ throws(SessionStoreError) in } }
        let sessions = contents.list()
        let output = args.has("json") ? SessionTable.json(sessions) : SessionTable.text(sessions)
        Output.write(output, to: 1)
        return 0
    }

    static func rename(_ args: ParsedArguments) throws(CommandFailure) -> Int32 {
        let (old, new) = (args.positionals[0], args.positionals[1])
        guard let (access, contents) = try open(args) else { throw .store(.unknownSession(old)) }
        let outcomes = Purger.purgeNow(contents.pendingPurges, caFile: args.value("ca-file"))
        try update(access, queued: contents.pendingPurges, outcomes) { c throws(SessionStoreError) in
            try c.rename(old, to: new)
        }
        Output.write("Renamed session \"\(old)\" to \"\(new)\".\n", to: 2)
        return 0
    }

    static func remove(_ args: ParsedArguments) throws(CommandFailure) -> Int32 {
        let name = args.positionals[0]
        guard let (access, contents) = try open(args), let record = contents.find(name: name) else {
            throw .store(.unknownSession(name))
        }
        var batches = contents.pendingPurges
        batches[record.serverURL, default: []] += record.deviceIDs
        let outcomes = Purger.purgeNow(batches, caFile: args.value("ca-file"))
        let outcome = outcomes[record.serverURL] ?? .unreachable("no answer")
        try update(access, queued: contents.pendingPurges, outcomes) { c throws(SessionStoreError) in
            try c.remove(name: name)
            if outcome.shouldQueue { c.queuePurge(server: record.serverURL, deviceIDs: record.deviceIDs) }
        }
        let ids = PurgeReport.count(record.deviceIDs.count)
        switch outcome {
        case .purged:
            Output.write("Removed session \"\(name)\" and purged its \(ids) at \(record.serverURL).\n", to: 2)
        case .refused(let why):
            Output.write("Removed session \"\(name)\"; \(record.serverURL) refused to purge its \(ids) (\(why)).\n", to: 2)
        case .unreachable(let why):
            Output.write("""
                Removed session "\(name)". Could not reach \(record.serverURL) to purge its \(ids) (\(why)): \
                the purge is queued and retried the next time the store is opened.

                """, to: 2)
        }
        return 0
    }

    static func erase(_ args: ParsedArguments) throws(CommandFailure) -> Int32 {
        guard let (access, contents) = try open(args) else {
            Output.write("There is no session store to erase.\n", to: 2)
            return 0
        }
        var batches = contents.pendingPurges
        for record in contents.list() { batches[record.serverURL, default: []] += record.deviceIDs }
        let outcomes = Purger.purgeNow(batches, caFile: args.value("ca-file"))
        do {
            try access.store.erase()
        } catch {
            throw .store(error)
        }
        var failed = false
        for (server, ids) in batches.sorted(by: { $0.key < $1.key }) {
            switch outcomes[server] ?? .unreachable("no answer") {
            case .purged:
                Output.write("Purged \(PurgeReport.count(ids.count)) at \(server).\n", to: 2)
            case .refused(let why), .unreachable(let why):
                failed = true
                Output.write("chatcli: could not purge \(PurgeReport.count(ids.count)) at \(server) (\(why)).\n", to: 2)
            }
        }
        Output.write("Erased the session store (\(access.store.directory)).\n", to: 2)
        guard !failed else {
            Output.write("chatcli: the store is gone, so those purges cannot be retried; their rooms end when they expire.\n", to: 2)
            return 1
        }
        return 0
    }

    static func passwd(_ args: ParsedArguments) throws(CommandFailure) -> Int32 {
        guard let store = StoreAccess.defaultStore(), store.exists else {
            throw CommandFailure(
                message: "there is no session store yet; it is created, with a passphrase you choose, when a session is first saved",
                status: 1)
        }
        guard let oldSource = try StoreAccess.source(args, option: "passphrase-fd", environment: PassphraseSource.environmentVariable)
        else { throw .store(.passphraseUnavailable) }
        do {
            let old = try oldSource.read(prompt: "Current session store passphrase: ")
            _ = try store.read(passphrase: old)   // a wrong passphrase fails before the new one is asked
            guard let newSource = try StoreAccess.source(args, option: "new-passphrase-fd", environment: "CHATCLI_NEW_PASSPHRASE")
            else {
                throw CommandFailure(
                    message: "no new passphrase: use --new-passphrase-fd N, set CHATCLI_NEW_PASSPHRASE, or run on a terminal",
                    status: 1)
            }
            try store.passwd(old: old, new: try newSource.readNew())
        } catch let error as SessionStoreError {
            throw .store(error)
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure(message: "\(error)", status: 1)
        }
        Output.write("Changed the session store passphrase.\n", to: 2)
        return 0
    }
}

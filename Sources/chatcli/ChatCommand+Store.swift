import ChatClient
import SessionStore

/// Whether `create`/`join` save their session, decided before the room exists.
extension ChatCommand {
    /// The recorder for this chat, or nil after saying once on stderr that the
    /// session is not saved (`--no-store`, no passphrase, no home directory).
    static func recorder(_ args: ParsedArguments, server: ServerURL, expiresIn: Int?) throws(CommandFailure)
        -> SessionRecorder?
    {
        let name = args.value("name")
        if args.has("no-store") {
            if name != nil { throw .usage(UsageError(message: "--name names a saved session; it cannot go with --no-store")) }
            notSaved("--no-store")
            return nil
        }
        if let name {
            do {
                try StoreContents.validate(name: name)
            } catch {
                throw .usage(UsageError(message: error.description))
            }
        }
        switch try StoreAccess.open(args) {
        case .notSaving(let reason):
            notSaved(reason)
            return nil
        case .opened(let access, let contents):
            if let name, contents.find(name: name) != nil { throw .store(.nameInUse(name)) }
            return SessionRecorder(access: access, server: server.description, queued: contents.pendingPurges,
                                   requestedName: name, expiresIn: expiresIn)
        }
    }

    /// Said once, on stderr (never on the `--json` stdout).
    static func notSaved(_ reason: String) {
        Output.write("Note: this session is not saved (\(reason)).\n", to: 2)
    }
}

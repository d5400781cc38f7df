import ChatClient
import ChatRuntime
import Runtime
import SessionStore
import Terminal

/// Whether `create`/`join` save their session, decided before the room exists.
extension ChatCommand {
    enum Saving {
        case saved(SessionRecorder)
        /// Not saved (`--no-store`, no passphrase, no home directory): said once
        /// on stderr when the room exists, never on the `--json` stdout.
        case unsaved(reason: String)
        /// An interactive chat without a cached key: asked once the code is shown.
        case offered(SaveOffer)

        func attach(to manager: ChatManager, caFile: String?, loop: EventLoop) {
            switch self {
            case .saved(let recorder):
                recorder.attach(to: manager, caFile: caFile, loop: loop)
            case .offered(let offer):
                offer.attach(to: manager, caFile: caFile, loop: loop)
            case .unsaved(let reason):
                // A failure before pairing stays one sentence: the note waits for the room.
                // A notice like the chat's others: above the prompt, never into its line (stderr in --json).
                manager.onSession = { [weak manager] update in
                    switch update {
                    case .pending, .joined, .group: manager?.onEvent(.notice("Note: this session is not saved (\(reason))."))
                    case .accepted, .closed, .peerPinned: break
                    }
                }
            }
        }
    }

    static func saving(_ args: ParsedArguments, server: ServerURL, expiresIn: Int?) throws(CommandFailure) -> Saving {
        let name = args.value("name")
        if args.has("no-store") {
            if name != nil { throw .usage(UsageError(message: "--name names a saved session; it cannot go with --no-store")) }
            return .unsaved(reason: "--no-store")
        }
        if let name {
            do {
                try StoreContents.validate(name: name)
            } catch {
                throw .usage(UsageError(message: error.description))
            }
        }
        switch try StoreAccess.open(args, unsavedAllowed: true, askLater: InteractiveChat.wanted(json: args.has("json"))) {
        case .notSaving(let reason):
            return .unsaved(reason: reason)
        case .askLater(let store):
            return .offered(SaveOffer(store: store, name: name, server: server.description, expiresIn: expiresIn))
        case .opened(let access, let contents):
            if let name, contents.find(name: name) != nil { throw .store(.nameInUse(name)) }
            return .saved(SessionRecorder(store: access.store, credential: access.credential, server: server.description,
                                          queued: contents.pendingPurges, requestedName: name, expiresIn: expiresIn))
        }
    }
}

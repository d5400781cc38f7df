/// `chatcli resume` and the `chatcli sessions …` family (WireProtocol §4).
/// Each `sessions` subcommand is its own spec named "sessions X", so
/// `chatcli sessions rm --help` and its errors name the right command.
extension Commands {
    static let passphraseFD = OptionSpec.value(
        "passphrase-fd", "N", "Read the store passphrase from file descriptor N (one line; else CHATCLI_PASSPHRASE, else a prompt).")

    static let storeDetails = """
        The store is $XDG_DATA_HOME/chatcli/sessions.v1 (else ~/.local/share/chatcli/), sealed with a key
        derived from your passphrase (Argon2id, XChaCha20-Poly1305). It never holds messages.
        At the terminal prompt a mistyped passphrase gets three tries; Enter alone means none
        (create and join then offer to go on without saving).
        """

    static let resume = CommandSpec(
        name: "resume",
        arguments: "NAME",
        brief: "continue a saved session",
        summary: "Continue a saved session: a pending one waits for the peer again, an accepted one rejoins its room.",
        options: [
            .value("ice-server", "URL", "Extra STUN/TURN server (stun:HOST:PORT); repeatable.", repeatable: true),
            .value("ca-file", "F", "Trust this CA (PEM) for an https:// server instead of the system store."),
            .flag("json", "Print one JSON event per line (for scripts)."),
            .flag("accept-new-peer", "Trust the certificate your peer shows now, instead of the one pinned for this session."),
            acceptUnproven,
            .value("auto-accept", "DIR", "Accept every file your peer sends into DIR without asking."),
            .value("as", "NAME", "Your display name in the chat (in a group: what the others see)."),
            passphraseFD,
        ],
        positionals: 1...1,
        details: "A group member's session takes it back to its seat in the group room; it gets what each member typed "
            + "meanwhile, and proves the code to each again. "
            + "The session's server, code, room, device id and DTLS certificate come from the store, so your peer sees "
            + "the same certificate again; a peer that shows another certificate than the one pinned at the first connection "
            + "waits until you compare the safety words and type /verify ok; a script is refused (error peer_changed) "
            + "unless you pass --accept-new-peer. " + storeDetails
    )

    static let purgeOptions: [OptionSpec] = [
        passphraseFD,
        .value("ca-file", "F", "Trust this CA (PEM) for https:// servers instead of the system store."),
    ]

    static let sessionsList = CommandSpec(
        name: "sessions",
        brief: "list, rename, remove or erase saved sessions",
        summary: "List saved sessions: name, role, status, code, server, created and expiry (local time).",
        options: [.flag("json", "Print one JSON object per session.")] + purgeOptions,
        positionals: 0...0,
        details: """
            Subcommands (each has --help):
              sessions rename OLD NEW   rename a session
              sessions rm NAME          remove a session and purge its device ids on its server
              sessions erase            purge every session's device ids, then delete the store
              sessions passwd           change the store passphrase
            Purges that could not reach their server are queued and retried whenever the store is opened.

            """ + storeDetails,
        usageNote: "(or: chatcli sessions rename|rm|erase|passwd …)"
    )

    static let sessionsRename = CommandSpec(
        name: "sessions rename",
        arguments: "OLD NEW",
        summary: "Rename a saved session.",
        options: [passphraseFD],
        positionals: 2...2
    )

    static let sessionsRemove = CommandSpec(
        name: "sessions rm",
        arguments: "NAME",
        summary: "Remove a saved session and purge its device ids on its server (POST /api/user/purge).",
        options: purgeOptions,
        positionals: 1...1,
        details: "If the server cannot be reached, the purge is queued in the store and retried the next time it is opened."
    )

    static let sessionsErase = CommandSpec(
        name: "sessions erase",
        summary: "Purge every saved device id on its server, then delete the store and its lock file.",
        options: purgeOptions,
        positionals: 0...0,
        details: """
            Nothing can be queued once the store is gone: servers that could not be reached are named, and
            the command exits 1. Their rooms still end when they expire. A store you cannot open (forgotten
            passphrase) can only be deleted by hand, without purging: rm -r ~/.local/share/chatcli
            """
    )

    static let sessionsPasswd = CommandSpec(
        name: "sessions passwd",
        summary: "Change the store passphrase (re-encrypts the store under a new key).",
        options: [
            .value("passphrase-fd", "N", "Read the current passphrase from file descriptor N (else CHATCLI_PASSPHRASE, else a prompt)."),
            .value("new-passphrase-fd", "N", "Read the new passphrase from file descriptor N (else CHATCLI_NEW_PASSPHRASE, else a prompt asked twice)."),
        ],
        positionals: 0...0,
        details: "The same descriptor may carry both: the current passphrase on its first line, the new one on its second."
    )

    static let sessions = [sessionsList, sessionsRename, sessionsRemove, sessionsErase, sessionsPasswd]

    /// The spec for `arguments` and the arguments after its name:
    /// `sessions rm X` is "sessions rm", a bare `sessions` lists.
    static let lock = CommandSpec(
        name: "lock",
        brief: "forget the store key cached for this login session",
        summary: "Forget the session store's key cached in this login session: the next saved or resumed chat asks for the passphrase again.",
        options: [],
        positionals: 0...0,
        details: """
            A passphrase typed at a terminal unlocks the store once per login session: the key derived from it \
            is kept in the kernel's session keyring (keyrings(7)) and forgotten after 8 hours without use, at \
            logout, or with 'chatcli lock'. Set CHATCLI_KEY_CACHE_SECONDS to change that time; 0 turns the \
            cache off. A passphrase given with --passphrase-fd or CHATCLI_PASSPHRASE is never cached.
            """
    )

    static func lookup(_ arguments: [String]) -> (CommandSpec, [String])? {
        guard let first = arguments.first else { return nil }
        if first == "sessions", arguments.count > 1,
            let sub = sessions.first(where: { $0.name == "sessions " + arguments[1] })
        {
            return (sub, Array(arguments.dropFirst(2)))
        }
        return all.first(where: { $0.name == first }).map { ($0, Array(arguments.dropFirst())) }
    }
}

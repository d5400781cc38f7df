/// The subcommands and their options (WireProtocol.md §4, in Sources/Signaling/Signaling.docc).
enum Commands {
    static let serve = CommandSpec(
        name: "serve",
        brief: "run the signaling server (REST, WebSocket, STUN)",
        summary: "Run the signaling server: REST + WebSocket on --port, STUN on --stun-port and the next port.",
        options: [
            .value("host", "H", "Address to listen on (default 0.0.0.0; use :: for IPv6 and IPv4)."),
            .value("port", "P", "HTTP/WebSocket port (default 8080)."),
            .value("stun-port", "P", "STUN Binding port; the next port answers too (default 3478)."),
            .value("db", "PATH", "SQLite file that keeps rooms across restarts (default $XDG_STATE_HOME/chatcli/rooms.db, else ~/.local/state/chatcli/rooms.db)."),
            .value("tls-cert", "F", "PEM certificate chain: serve HTTPS and WSS directly."),
            .value("tls-key", "F", "PEM private key for --tls-cert."),
            .value("turn-url", "URL", "TURN server to hand out with credentials (repeatable).", repeatable: true),
            .value("turn-secret-file", "F", "File holding the TURN shared secret (or set CHATCLI_TURN_SECRET)."),
            .flag("turn-members-only", "Give TURN credentials only to members of a live room (see above)."),
            .value("rate-limit", "N", "Missed accepts allowed per client address per minute (default 10)."),
            .flag("log-addresses", "Log client addresses in full (they are redacted by default)."),
        ],
        positionals: 0...0,
        details: """
            Logs one structured line per request or connection to stderr; the first says where it listens and \
            which room database it uses. Stop with Ctrl-C (exit 130) or SIGTERM (exit 143): open WebSockets are \
            closed with 1001 first.

            TURN credentials (GET /api/ice-servers) are valid 24 h. A client that names its room \
            (?roomid=R&deviceId=D) gets credentials for that member only, expiring with the room at the latest; \
            with --turn-members-only, a request that names no room gets the STUN entry alone (chatcli peers \
            always name their room). Credentials cannot be revoked before they expire.
            """
    )

    static let clientOptions: [OptionSpec] = [
        .value("server", "URL", "Signaling server (default $CHATCLI_SERVER, then \(defaultServer))."),
        .value("ice-server", "URL", "Extra STUN or TURN server (stun:HOST:PORT, turn:HOST:PORT?transport=udp|tcp); repeatable. "
               + "TURN credentials: CHATCLI_TURN_USERNAME and CHATCLI_TURN_PASSWORD.", repeatable: true),
        .value("ca-file", "F", "Trust this CA (PEM) for an https:// server instead of the system store."),
        .flag("relay-only", "Connect only through the server's TURN relay: your peer never sees your IP addresses."),
        .flag("hard-nat-probing", "Experimental: against a symmetric NAT, find a direct path by probing many ports (both sides need it)."),
        .flag("json", "Print one JSON event per line (for scripts)."),
        .value("auto-accept", "DIR", "Accept every file your peer sends (/send) into DIR without asking (else /accept puts it in the current folder)."),
        .flag("no-store", "Do not save this session."),
        .value("name", "NAME", "Save the session under this name (default: the code)."),
        passphraseFD,
    ]

    static let defaultServer = "http://localhost:8080"

    static let relayDetails = """
        --relay-only (WebRTC's "relay" ICE policy) offers your peer only addresses on the TURN relay the \
        signaling server hands out (chatcli serve --turn-url), or on your own (--ice-server turn:HOST:PORT \
        with CHATCLI_TURN_USERNAME and CHATCLI_TURN_PASSWORD set), so neither your local nor your public IP \
        address reaches them; the relay's operator still sees it. Without a TURN server it fails at once.
        """

    static let create = CommandSpec(
        name: "create",
        brief: "start a chat and print a code for your peer",
        summary: "Start a chat: prints a 6-digit code for your peer to join with, then waits for them.",
        options: [.value("expires", "SECONDS", "How long the code and room live, 60…86400 (default 3600).")] + clientOptions,
        positionals: 0...0,
        details: interactiveDetails + "\n\n" + relayDetails
    )

    /// `create --help` and `join --help`.
    static let interactiveDetails = """
        On a terminal the chat is interactive: type messages at the prompt, which shows the connection state;
        /help lists the commands (/status, /verify, /verify ok, /name NAME, /clear, /leave, /quit; Ctrl-D quits,
        Ctrl-C twice leaves). When stdin is not a terminal, or with --json, each stdin line is one message.
        """

    static let join = CommandSpec(
        name: "join",
        arguments: "CODE",
        brief: "join a chat with the code your peer gave you",
        summary: "Join the chat your peer created, with the 6-digit code they gave you.",
        options: clientOptions,
        positionals: 1...1,
        details: interactiveDetails + "\n\n" + relayDetails
    )

    static let doctor = CommandSpec(
        name: "doctor",
        brief: "check the server and this network's NAT",
        summary: "Check the signaling server, classify this network's NAT (can chats go direct?) and test its TURN relays.",
        options: [
            .value("server", "URL", "Signaling server (default $CHATCLI_SERVER, then \(defaultServer))."),
            .value("ice-server", "URL", "STUN server to test against instead of the server's (stun:HOST:PORT), or a TURN server "
                   + "to check too (turn:HOST:PORT?transport=udp|tcp; CHATCLI_TURN_USERNAME and CHATCLI_TURN_PASSWORD).", repeatable: true),
            .value("ca-file", "F", "Trust this CA (PEM) for an https:// server instead of the system store."),
            .flag("json", "Print one JSON object (srflx, nat, turn, server checks)."),
        ],
        positionals: 0...0,
        details: """
            NAT kinds: none, endpoint-independent, address-dependent, address-and-port-dependent, udp-blocked.
            TURN: for each relay the server offers, two allocations are made and a probe goes out through one \
            relayed address and back through the other: the relayed address and that round trip are reported.
            """
    )

    static let all = [create, join, send, receive, serve, doctor, resume] + sessions + [help, version, completion]
}

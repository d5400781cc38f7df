/// The subcommands and their options (PROTOCOL.md §4).
enum Commands {
    static let serve = CommandSpec(
        name: "serve",
        usage: "serve [--host H] [--port P] [--stun-port P] [--db PATH] [--tls-cert F --tls-key F]",
        summary: "Run the signaling server: REST + WebSocket on --port, STUN on --stun-port and the next port.",
        options: [
            .value("host", "H", "Address to listen on (default 0.0.0.0; use :: for IPv6 and IPv4)."),
            .value("port", "P", "HTTP/WebSocket port (default 8080)."),
            .value("stun-port", "P", "STUN Binding port; the next port answers too (default 3478)."),
            .value("db", "PATH", "SQLite file that keeps rooms across restarts (default ./chatcli-rooms.db)."),
            .value("tls-cert", "F", "PEM certificate chain: serve HTTPS and WSS directly."),
            .value("tls-key", "F", "PEM private key for --tls-cert."),
            .value("turn-url", "URL", "TURN server to hand out with credentials (repeatable).", repeatable: true),
            .value("turn-secret-file", "F", "File holding the TURN shared secret (or set CHATCLI_TURN_SECRET)."),
            .value("rate-limit", "N", "Missed accepts allowed per client address per minute (default 10)."),
            .flag("log-addresses", "Log client addresses in full (they are redacted by default)."),
        ],
        positionals: 0...0,
        details: "Logs one structured line per request or connection to stderr. Stop with Ctrl-C or SIGTERM."
    )

    static let clientOptions: [OptionSpec] = [
        .value("server", "URL", "Signaling server (default $CHATCLI_SERVER, then \(defaultServer))."),
        .value("ice-server", "URL", "Extra STUN/TURN server (stun:HOST:PORT); repeatable.", repeatable: true),
        .value("ca-file", "F", "Trust this CA (PEM) for an https:// server instead of the system store."),
        .flag("json", "Print one JSON event per line (for scripts)."),
        .flag("no-store", "Do not save this session."),
    ]

    static let defaultServer = "http://localhost:8080"

    static let create = CommandSpec(
        name: "create",
        usage: "create [--server URL] [--expires SECONDS] [--json] [--no-store]",
        summary: "Start a chat: prints a 6-digit code for your peer to join with, then waits for them.",
        options: [.value("expires", "SECONDS", "How long the code and room live, 60…86400 (default 3600).")] + clientOptions,
        positionals: 0...0,
        details: interactiveDetails
    )

    /// `create --help` and `join --help`.
    static let interactiveDetails = """
        On a terminal the chat is interactive: type messages at the prompt, which shows the connection state;
        /help lists the commands (/status, /verify, /verify ok, /name NAME, /clear, /leave, /quit; Ctrl-D quits,
        Ctrl-C twice leaves). When stdin is not a terminal, or with --json, each stdin line is one message.
        """

    static let join = CommandSpec(
        name: "join",
        usage: "join CODE [--server URL] [--json] [--no-store]",
        summary: "Join the chat your peer created, with the 6-digit code they gave you.",
        options: clientOptions,
        positionals: 1...1,
        details: interactiveDetails
    )

    static let doctor = CommandSpec(
        name: "doctor",
        usage: "doctor [--server URL] [--json]",
        summary: "Check the signaling server and classify this network's NAT: can chats here go direct?",
        options: [
            .value("server", "URL", "Signaling server (default $CHATCLI_SERVER, then \(defaultServer))."),
            .value("ice-server", "URL", "STUN server to test against instead of the server's (stun:HOST:PORT).", repeatable: true),
            .value("ca-file", "F", "Trust this CA (PEM) for an https:// server instead of the system store."),
            .flag("json", "Print one JSON object (srflx, nat, server checks)."),
        ],
        positionals: 0...0,
        details: "NAT kinds: none, endpoint-independent, address-dependent, address-and-port-dependent, udp-blocked."
    )

    static let all = [serve, create, join, doctor]

    static let mainHelp = """
        chatcli — ephemeral, end-to-end encrypted peer-to-peer chat for the terminal.

        Usage:
          chatcli create [options]        start a chat and print a code for your peer
          chatcli join CODE [options]     join a chat with the code your peer gave you
          chatcli serve [options]         run the signaling server (REST, WebSocket, STUN)
          chatcli doctor [options]        check the server and this network's NAT

        Run 'chatcli COMMAND --help' for a command's options.
        Exit status: 0 normal end, 1 failure, 2 usage error, 130 interrupted.
        """
}

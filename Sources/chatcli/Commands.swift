/// The subcommands and their options (WireProtocol.md §4, in Sources/Signaling/Signaling.docc).
enum Commands {
    static let serve = CommandSpec(
        name: "serve",
        brief: "run the signaling server (REST, WebSocket, STUN)",
        summary: "Run the signaling server: REST + WebSocket on --port, STUN on --stun-port and the next port, and a TURN relay.",
        options: [
            .value("host", "H", "Address to listen on (default 0.0.0.0; use :: for IPv6 and IPv4)."),
            .value("port", "P", "HTTP/WebSocket port (default 8080)."),
            .value("stun-port", "P", "STUN Binding port; the next port answers too (default 3478)."),
            .value("public-stun-port", "P", "STUN port to name in /api/ice-servers when a load balancer maps it (default --stun-port)."),
            .value("db", "PATH", "SQLite file that keeps rooms across restarts (default $XDG_STATE_HOME/chatcli/rooms.db, else ~/.local/state/chatcli/rooms.db)."),
            .value("tls-cert", "F", "PEM certificate chain: serve HTTPS and WSS directly."),
            .value("tls-key", "F", "PEM private key for --tls-cert."),
            .value("turn-url", "URL", "TURN server to hand out with credentials (repeatable).", repeatable: true),
            .value("turn-secret-file", "F", "File holding the TURN shared secret (or set CHATCLI_TURN_SECRET)."),
            .flag("turn-members-only", "Give TURN credentials only to members of a live room (see above)."),
            .flag("no-turn", "Do not run the embedded TURN relay."),
            .value("turn-allow-peer", "CIDR", "Let relayed traffic reach this private block too (repeatable; for labs and LANs).", repeatable: true),
            .value("turn-relay-ports", "LOW-HIGH", "UDP ports for relayed addresses (default: any the kernel picks)."),
            .value("turn-external-ip", "PUBLIC[/LOCAL]", "Behind a 1:1 NAT: advertise relayed addresses bound on LOCAL (default: any) as PUBLIC (repeatable).",
                   repeatable: true),
            .value("turn-host", "HOST", "Name or address to give for this instance's relay (default: the host each request came to)."),
            .value("turn-user-quota", "N", "Relay allocations one chat member may hold at once (default 10)."),
            .value("turn-max-allocations", "N", "Relay allocations in all (default 1000)."),
            .value("metrics-listen", "ADDR:PORT", "Serve GET /metrics (Prometheus text) on this address only (off by default)."),
            .value("rate-limit", "N", "Wrong codes (accepts that miss) allowed per client per minute (default 10)."),
            .value("create-limit", "N", "Rooms one client may create per hour (default 60)."),
            .value("connection-limit", "N", "Connections one client may hold open at once (default 100)."),
            .value("max-rooms", "N", "Live rooms above which creating answers 503 code_space_full (default 100000)."),
            .flag("log-addresses", "Log client addresses in full (they are redacted by default)."),
            .value("log-format", "FORMAT", "logfmt (key=value, the default) or json (one object per line, for log shippers)."),
            .value("cors-origin", "ORIGIN", "Let a web page hosted at ORIGIN (https://host[:port]) call the REST API (off by default)."),
            .value("trusted-proxy", "IP", "Load balancer whose X-Forwarded-For names the client, for the limits (repeatable).", repeatable: true),
            .value("redis", "URL", "Keep rooms in Redis, shared by every instance (redis://[user@]HOST:PORT[/DB], rediss:// for TLS)."),
            .value("redis-password-file", "F", "File holding the Redis password (or set CHATCLI_REDIS_PASSWORD)."),
            .value("redis-ca", "F", "CA certificates (PEM) to verify a rediss:// server (default: the system store)."),
        ],
        positionals: 0...0,
        details: """
            Logs one structured line per request or connection to stderr; the first says where it listens and \
            which room database it uses. Stop with Ctrl-C (exit 130) or SIGTERM (exit 143): open WebSockets are \
            closed with 1001 first.

            The embedded TURN relay (RFC 8656) needs no port of its own: TURN over UDP shares --stun-port, \
            TURN over TCP shares --port (TLS too with --tls-cert: turns:), told apart by their first byte; \
            relayed addresses are UDP ports the kernel picks (or --turn-relay-ports). So two servers on \
            different ports never collide. It only relays to globally routable peers (never loopback, \
            private, link-local, CGNAT, multicast, or this server's own ports; --turn-allow-peer for labs), \
            with per-member and total quotas. --turn-url uses an external relay (coturn) instead; --no-turn none.

            TURN credentials (GET /api/ice-servers) are valid 24 h. A client that names its room \
            (?roomid=R&deviceId=D) gets credentials for that member only, expiring with the room at the latest; \
            with --turn-members-only, a request that names no room gets the STUN entry alone (chatcli peers \
            always name their room). Credentials cannot be revoked before they expire.

            The web client is served at / (create a chat or join by code) and /j/CODE#WORDS (join at once; \
            the secret words ride in the fragment, which browsers never send): a browser is a peer like chatcli, \
            runs the same PAKE on the whole code and shows the same safety words. Invite codes never appear in the log.

            Limits count per client: an IPv4 address or an IPv6 /64 (behind --trusted-proxy, the forwarded \
            address). Over --connection-limit a new connection is closed at once; over --create-limit or \
            --rate-limit the answer is 429 rate_limited with Retry-After. A client that does not read what it \
            asked for waits: past 256 KiB of unsent output (or 32 MiB for all clients together) its HTTP \
            connection is read no further and closed after 30 s, and a WebSocket is closed at once (the other \
            member hears peer_disconnected). With --redis, each instance counts connections and creations for \
            itself, and --max-rooms counts the live rooms of all instances together (Redis holds them).

            With --redis, several instances behind a load balancer share rooms, rate limits, long polls and \
            the signaling relay; --db is not used. While Redis is unreachable, /healthz and the room routes \
            answer 503 with Retry-After. SIGTERM drains: WebSockets close with 1001 so clients move to \
            another instance, their seats are freed, then the process exits.
            """
    )

    static let clientOptions: [OptionSpec] = [
        .value("server", "URL", "Signaling server (default $CHATCLI_SERVER, then \(defaultServer))."),
        .value("ice-server", "URL", "Extra STUN or TURN server (stun:HOST:PORT, turn:HOST:PORT?transport=udp|tcp); repeatable. "
               + "TURN credentials: CHATCLI_TURN_USERNAME and CHATCLI_TURN_PASSWORD.", repeatable: true),
        .value("ca-file", "F", "Trust this CA (PEM) for an https:// server instead of the system store."),
        .flag("relay-only", "Connect only through the server's TURN relay: your peer never sees your IP addresses."),
        .flag("hard-nat-probing", "Experimental: against a symmetric NAT, find a direct path by probing many ports (both sides need it)."),
        .flag("no-port-mapping", "Do not ask the router for a port mapping (PCP, NAT-PMP, UPnP) to offer as a candidate."),
        .flag("json", "Print one JSON event per line (for scripts)."),
        acceptUnproven,
        .value("auto-accept", "DIR", "Accept every file your peer sends (/send) into DIR without asking (else /accept puts it in the current folder)."),
        .flag("no-store", "Do not save this session."),
        .value("name", "NAME", "Save the session under this name (default: the code)."),
        .value("as", "NAME", "Your display name in the chat (default in a group: a short handle like guest-3f2a)."),
        passphraseFD,
    ]

    static let acceptUnproven = OptionSpec.flag(
        "accept-unproven", "Go on with a peer the code did not prove (only the six digits, a browser): compare the safety words yourself.")

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
        summary: "Start a chat: prints a code like 123456-brave-calm for your peer to join with, then waits for them.",
        options: [.value("expires", "SECONDS", "How long the code and room live, 60…86400 (default 3600)."),
                  .flag("group", "A group chat: up to --max people join with the one code (default 8)."),
                  .value("max", "N", "With --group: how many people the room holds, 3…8 (default 8).")]
            + clientOptions + [lanOption],
        positionals: 0...0,
        details: """
            Next to the code comes a link that opens the chat in a browser (nothing to install), and on a terminal a QR \
            code of it for a phone to scan; --json gives the link as "url" in the code event.

            With --group, everyone who has the code joins with 'chatcli join CODE' (up to --max people, you \
            included). Each pair of members has its own end-to-end encrypted connection and proves the code on \
            it; what you type goes to everyone, and each line shows with its sender's name (--as NAME, or a \
            short handle). Each sender's lines arrive in the order typed, exactly once; lines of different \
            senders show in the order they arrive. /who lists the members. The room lasts until its last member \
            leaves or it expires.
            """ + "\n\n" + interactiveDetails + "\n\n" + relayDetails + "\n\n" + lanDetails
    )

    static let codeDetails = """
        The six digits find the chat on the server; the two words never leave your machines: both sides prove \
        they typed the same code (a PAKE) before anything is shown or sent, so the chat is "verified by code" \
        and no safety words need comparing. A wrong code ends the chat on both sides, and the code cannot be \
        tried again. With only the six digits (as an Inviso or browser peer knows them), or whenever the code \
        did not prove the peer, nothing is sent or shown until you accept it: compare the five safety words \
        with your peer, then type /verify ok (or /leave). A script states in advance that it accepts such a \
        peer with --accept-unproven (it still gets the "unproven" event); without it, it exits 1 having sent \
        nothing. Joining with the whole code never falls back to an unproven chat. A code reads in any case, with spaces or \
        dashes anywhere, unquoted, or as the whole invite link (https://server/j/123456#brave-calm, which also \
        names the server).
        """

    static let lanOption = OptionSpec.flag("lan", "No server: find each other on the local network (mDNS, DNS-SD _chatcli._udp).")

    static let lanDetails = """
        --lan needs no server: 'create --lan' advertises the waiting chat on the local network under the name given \
        with --name (nothing in the advertisement reveals the code) and 'join CODE --lan' finds it there. LAN chats \
        are not saved. CHATCLI_MDNS_INTERFACES=eth0,wlan0 picks the interfaces (default: every interface that is up \
        and multicast-capable, except loopback, tunnels and virtual ones such as docker0 or veth*).
        """

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
        summary: "Join the chat your peer created, with the code they gave you (123456-brave-calm).",
        options: clientOptions + [lanOption],
        positionals: 0...4,
        details: codeDetails + "\n\n" + interactiveDetails + "\n\n" + relayDetails + "\n\n" + lanDetails
            + " 'join --lan' without a code lists the chats waiting nearby, like 'chatcli lan'."
    )

    static let lan = CommandSpec(
        name: "lan",
        brief: "list the chats waiting on the local network",
        summary: "List the chats waiting on the local network (made with 'chatcli create --lan') by the name their creator chose.",
        options: [
            .value("wait", "SECONDS", "How long to listen before listing, 1…60 (default 2)."),
            .flag("watch", "Keep listening: print each chat as it appears and disappears, until Ctrl-C."),
            .flag("json", "One JSON object per line: {\"event\":\"lan_chat\",\"name\":…} (and lan_chat_gone with --watch)."),
        ],
        positionals: 0...0,
        details: "Joining one still needs its code: chatcli join CODE --lan."
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
            .flag("json", "Print one JSON object (srflx, nat, turn, server checks, port mapping)."),
            .flag("no-port-mapping", "Do not ask the router which port-mapping protocols (PCP, NAT-PMP, UPnP) it offers."),
        ],
        positionals: 0...0,
        details: """
            NAT kinds: none, endpoint-independent, address-dependent, address-and-port-dependent, udp-blocked.
            TURN: for each relay the server offers, two allocations are made and a probe goes out through one \
            relayed address and back through the other: the relayed address and that round trip are reported.
            """
    )

    static let all = [create, join, send, receive, lan, serve, doctor, resume] + sessions + [lock, help, version, completion]
}

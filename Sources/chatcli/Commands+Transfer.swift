/// `chatcli send` and `chatcli receive` (FileTransfer.md in Sources/Signaling/Signaling.docc).
extension Commands {
    static let transferClientOptions: [OptionSpec] = [
        .value("server", "URL", "Signaling server (default $CHATCLI_SERVER, then \(defaultServer))."),
        .value("ice-server", "URL", "Extra STUN or TURN server (stun:HOST:PORT, turn:HOST:PORT?transport=udp|tcp); repeatable.", repeatable: true),
        .value("ca-file", "F", "Trust this CA (PEM) for an https:// server instead of the system store."),
        .flag("relay-only", "Connect only through the server's TURN relay: your peer never sees your IP addresses."),
        .flag("json", "Print one JSON event per line: code, connected, offer, progress, file_done, transfer_done, error."),
        acceptUnproven,
    ]

    static let transferDetails = """
        Each file or folder goes on its own encrypted data channel, hashed (SHA-256) while it is sent and \
        verified by the receiver. Folders keep their relative paths, permissions and empty folders; symbolic \
        links are sent as the file they name only when it is inside the folder. An interrupted transfer \
        resumes: run send again and receive again with the new code into the same --out folder, and only \
        what is missing from NAME.part is sent (its first part is proven by hash). Nothing (not even a name) \
        crosses before the code proved the peer: with only the six digits, or a peer that cannot prove the \
        code, both exit 1 having sent nothing unless started with --accept-unproven.
        """

    static let send = CommandSpec(
        name: "send",
        arguments: "PATH...",
        brief: "send files or folders: prints a code for your peer",
        summary: "Send files or folders (or standard input with -): prints a code; your peer runs 'chatcli receive CODE'.",
        options: [
            .value("expires", "SECONDS", "How long the code lives, 60…86400 (default 3600)."),
            .value("name", "NAME", "The name the receiver sees for standard input (default stdin)."),
        ] + transferClientOptions,
        positionals: 1...64,
        details: transferDetails + "\n\nExit status: 0 when the receiver verified everything, 1 otherwise, 130 on Ctrl-C."
    )

    static let receive = CommandSpec(
        name: "receive",
        arguments: "CODE",
        brief: "receive what your peer sends with 'chatcli send'",
        summary: "Receive files or folders your peer offers with 'chatcli send'; shows each offer (name, size, count) first.",
        options: [
            .value("out", "DIR", "Folder to receive into (default: the current folder); - writes one file to standard output."),
            .flag("yes", "Accept every offer without asking."),
            .flag("overwrite", "Replace an existing NAME (else it arrives as 'NAME (1)')."),
        ] + transferClientOptions,
        positionals: 1...4,
        details: transferDetails + """


            Without --yes, each offer is put to you as a question on the terminal (and declined when there is \
            no terminal to ask). Names are checked before anything is written: no absolute paths, no '..', no \
            control or bidi characters, no device names; nothing is written outside --out, and never more than \
            was offered. A file arrives as NAME.part and is renamed once its hash matched.
            Exit status: 0 when every offer arrived verified, 1 otherwise, 130 on Ctrl-C.
            """
    )
}

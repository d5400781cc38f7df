import ChatClient
import ChatRuntime
import DTLS
import FileTransfer
import Glibc
import PAKE
import Runtime
import Signaling
import Terminal

/// `chatcli create` and `chatcli join CODE`: validate the input, then run a
/// ChatManager on the event loop until the session ends.
enum ChatCommand {
    static func run(_ args: ParsedArguments, join: Bool) -> Int32 {
        let printer = EventPrinter(jsonMode: args.has("json"))
        func usage(_ message: String) -> Int32 {
            Output.write("chatcli: \(message)\n", to: 2)
            return 2
        }

        if args.has("lan") { return LANCommand.run(args, join: join, printer: printer) }
        if join && args.positionals.isEmpty {
            return usage("missing argument: usage is 'chatcli join CODE [options]' (see 'chatcli join --help')")
        }
        // A pasted invite link names its server; --server still wins.
        let linkServer = join ? PairingCode(userInput: args.positionals.joined(separator: " "))?.linkServer : nil
        let serverText = args.value("server") ?? linkServer ?? environment("CHATCLI_SERVER") ?? Commands.defaultServer
        guard let server = ServerURL(serverText) else {
            return usage("'\(serverText)' is not a server URL: use http://HOST:PORT or https://HOST")
        }
        guard let iceServers = ICEServerOptions.entries(args) else { return 2 }
        let mode: ChatManager.Mode
        var expiresIn: Int?
        var secret: CodeSecret?
        if join {
            // Unquoted "123456 brave calm" arrives as several arguments.
            let raw = args.positionals.joined(separator: " ")
            guard let code = PairingCode(userInput: raw) else {
                let error = ClientError.invalidCode(raw)
                printer.emitIfJSON(.error(error))
                return usage(error.message)
            }
            mode = .join(code: code.locator)
            secret = code.secret
        } else {
            let text = args.value("expires") ?? "3600"
            guard let seconds = Int(text), (60...86400).contains(seconds) else {
                return usage("--expires takes a number of seconds from 60 to 86400, not '\(text)'")
            }
            mode = .create(expiresIn: seconds)
            expiresIn = seconds
        }
        var groupMax: Int?
        if args.has("group") || args.value("max") != nil {
            guard !join else { return usage("--group and --max are for 'chatcli create': 'join' learns from the code that it is a group") }
            let text = args.value("max") ?? "\(GroupSize.defaultMax)"
            guard let max = Int(text), GroupSize.range.contains(max) else {
                return usage("--max takes the number of people in the group, \(GroupSize.range.lowerBound) to \(GroupSize.range.upperBound), not '\(text)'")
            }
            groupMax = max
        }
        if let name = args.value("as"), name.isEmpty || name.utf8.count > 64 {
            return usage("--as takes a display name of 1 to 64 bytes")
        }
        let saving: Saving
        do {
            saving = try Self.saving(args, server: server, expiresIn: expiresIn)
        } catch {
            Output.write("chatcli: \(error.message)\n", to: 2)
            return error.status
        }
        return chat(mode: mode, server: server, printer: printer, args: args, iceServers: iceServers, saving: saving,
                    identity: ChatIdentity(), secret: secret) { manager in
            manager.options.groupMax = groupMax
            manager.groupName = args.value("as")
        }
    }

    /// The chat's DTLS certificate (a resumed session's saved one, else a
    /// fresh one) and the peer it pinned.
    struct ChatIdentity {
        var certificate: DTLSCertificate?
        var pinnedPeer: PinnedPeer?
        /// False for a session saved before identities were kept.
        var pinsPeer = true
    }

    /// Runs the chat on an event loop until it ends; returns the exit status.
    static func chat(mode: ChatManager.Mode, server: ServerURL, printer: EventPrinter, args: ParsedArguments,
                     iceServers: [ICEServerEntry], saving: Saving, identity: ChatIdentity, secret: CodeSecret? = nil,
                     on existing: EventLoop? = nil, configure: ((ChatManager) -> Void)? = nil) -> Int32 {
        if let directory = args.value("auto-accept") {
            var st = stat()
            guard stat(directory, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
                Output.write("chatcli: --auto-accept \(directory): no such folder\n", to: 2)
                return 2
            }
        }
        let loop: EventLoop
        let connector: Connector
        let certificate: DTLSCertificate
        do {
            loop = try existing ?? EventLoop()
            connector = try Connector(loop: loop, server: server, caFile: args.value("ca-file"))
            certificate = try identity.certificate ?? DTLSCertificate()
        } catch let error as ClientError {
            printer.emit(.error(error))
            return 1
        } catch {
            Output.write("chatcli: cannot start: \(error)\n", to: 2)
            return 1
        }

        var onEvent: (ChatEvent) -> Void = printer.emit
        #if DEBUG
        // The test build only (not in release builds): freeze this process the moment
        // its peer is in the room, before it answers anything, as a closed laptop lid
        // would; the end-to-end test of `peer_not_answering` resumes it with SIGCONT.
        if environment("CHATCLI_TEST_FREEZE_AT_PEER_JOINED") != nil {
            onEvent = { event in
                printer.emit(event)
                if case .peerJoined = event { raise(SIGSTOP) }
            }
        }
        #endif
        let manager = ChatManager(loop: loop, connector: connector, mode: mode, onEvent: onEvent)
        if environment("CHATCLI_DEBUG_SESSION") != nil { manager.trace = { Output.write($0 + "\n", to: 2) } }
        manager.certificate = certificate
        manager.options.pinnedPeer = identity.pinnedPeer
        manager.options.pinsPeer = identity.pinsPeer
        saving.attach(to: manager, caFile: args.value("ca-file"), loop: loop)
        manager.options.extraICEServers = iceServers
        manager.options.codeSecret = secret
        manager.options.relayOnly = args.has("relay-only")
        manager.hardNATProbing = args.has("hard-nat-probing")
        manager.portMapping = portMappingWanted(args)
        if server.description != Commands.defaultServer { manager.options.inviteServer = server.description }
        printer.inviteBase = args.has("lan") ? nil : server.description   // a LAN chat's endpoint is this machine's loopback
        printer.qrCodes = EventPrinter.wantsQRCodes(json: args.has("json"))
        printer.colors = ChatStyle.colorsWanted(isTerminal: printer.qrCodes,
                                                environment: ["NO_COLOR", "TERM"].reduce(into: [:]) { $0[$1] = environment($1) })
        // The trust gate (ChatSession+Trust): a person is asked, a script must have said so in advance.
        manager.options.unproven = args.has("accept-unproven") || args.has("accept-new-peer") ? .accept
            : InteractiveChat.wanted(json: args.has("json")) ? .ask : .refuse
        configure?(manager)
        let files = fileTransfers(args, manager: manager)
        if InteractiveChat.wanted(json: args.has("json")) {
            manager.options.staysAfterPeerLeft = true
            return runInteractive(loop: loop, manager: manager, printer: printer, files: files, saving: saving)
        }
        let transferPrinter = TransferPrinter(jsonMode: args.has("json"))
        manager.onTransfer = { [unowned manager] update in
            transferPrinter.print(update, member: manager.transferMember(update.id))
            // A script cannot type /accept: without --auto-accept, offers are declined.
            if case .offered(let id, _) = update, manager.pendingOffers.contains(id) {
                manager.declineFile(id, reason: "the peer runs a script without --auto-accept")
            }
        }
        do {
            try loop.onSignal([SIGINT, SIGTERM]) { manager.interrupt(signal: $0) }
            let input = StandardInput(loop: loop)
            input.onLine = { manager.send(line: $0) }
            // Back-pressure: what the peer has not acknowledged stays bounded.
            input.mayRead = { manager.wantsInput }
            input.onOverlong = { size in
                printer.emit(.notSent(code: "message_too_large",
                                      message: "A message of \(size) bytes was not sent: the limit is \(ChatManager.maxMessageBytes) bytes."))
            }
            input.start { manager.endOfInput() }
            let status = manager.run()
            input.stop()
            return status
        } catch {
            Output.write("chatcli: cannot start: \(error)\n", to: 2)
            return 1
        }
    }

    /// Runs the session with the interactive chat; its exit status (1 if it could not start).
    private static func runInteractive(loop: EventLoop, manager: ChatManager, printer: EventPrinter, files: FileTransfers,
                                       saving: Saving) -> Int32 {
        let environment = ["NO_COLOR", "TERM"].reduce(into: [String: String]()) { $0[$1] = Self.environment($1) }
        let chat = InteractiveChat(loop: loop, manager: manager, printer: printer, environment: environment)
        chat.files = files
        defer { chat.stop() }   // the terminal is restored however the session ends
        do {
            try loop.onSignal([SIGINT]) { _ in chat.interrupt() }
            try loop.onSignal([SIGTERM, SIGHUP]) { manager.interrupt(signal: $0) }
            try loop.onSignal([SIGWINCH]) { _ in chat.editor.resize() }
            try chat.start()
            if case .offered(let offer) = saving {
                offer.chat = chat
                offer.askOnce()
            }
        } catch {
            chat.stop()
            Output.write("chatcli: cannot start: \(error)\n", to: 2)
            return 1
        }
        return manager.run()
    }

    /// `/send` and offers from the peer: accepted files go to `--auto-accept DIR`
    /// without asking, else to the current folder after `/accept`.
    static func fileTransfers(_ args: ParsedArguments, manager: ChatManager) -> FileTransfers {
        let directory = args.value("auto-accept")
        let files = FileTransfers { _ in WriteBehindSink(DiskSink(directory: directory ?? ".")) }
        files.autoAccept = directory != nil
        manager.attach(files)
        return files
    }

    /// `--no-port-mapping`, or `CHATCLI_PORT_MAPPING=off` for every command
    /// (the test suite's chats on this machine leave its router alone).
    static func portMappingWanted(_ args: ParsedArguments) -> Bool {
        !args.has("no-port-mapping") && environment("CHATCLI_PORT_MAPPING") != "off"
    }

    static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let s = String(cString: value)
        return s.isEmpty ? nil : s
    }
}

extension EventPrinter {
    func emitIfJSON(_ event: ChatEvent) {
        if jsonMode { emit(event) }
    }
}

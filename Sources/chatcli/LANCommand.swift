import ChatClient
import ChatRuntime
import Glibc
import Runtime
import Signaling
import SignalingServer
import Terminal
import Wire

/// `create --lan`, `join CODE --lan`, `join --lan` and `chatcli lan`: the
/// chat without a server. The creator runs the signaling endpoint itself
/// (the same REST and WebSocket as `chatcli serve`, rooms in memory, no
/// STUN) and advertises it with DNS-SD over mDNS; the joiner finds it by
/// the code's proof and talks to it exactly as to a server.
enum LANCommand {
    static func run(_ args: ParsedArguments, join: Bool, printer: EventPrinter) -> Int32 {
        // --no-store asks for what --lan does anyway (nothing saved): accepted.
        for option in ["server", "relay-only", "ca-file"] where args.has(option) || args.value(option) != nil {
            Output.write("chatcli: --\(option) does not go with --lan (a LAN chat has no server and is not saved)\n", to: 2)
            return 2
        }
        guard let iceServers = ICEServerOptions.entries(args) else { return 2 }
        if join {
            guard !args.positionals.isEmpty else { return list(args) }
            let raw = args.positionals.joined(separator: " ")
            guard let code = PairingCode(userInput: raw) else {
                let error = ClientError.invalidCode(raw)
                printer.emitIfJSON(.error(error))
                Output.write("chatcli: \(error.message)\n", to: 2)
                return 2
            }
            return joinChat(code: code, args: args, printer: printer, iceServers: iceServers)
        }
        let text = args.value("expires") ?? "3600"
        guard let seconds = Int(text), (60...86400).contains(seconds) else {
            Output.write("chatcli: --expires takes a number of seconds from 60 to 86400, not '\(text)'\n", to: 2)
            return 2
        }
        return create(expiresIn: seconds, args: args, printer: printer, iceServers: iceServers)
    }

    static var unsaved: ChatCommand.Saving { .unsaved(reason: "LAN chats are not saved") }

    static func driver(loop: EventLoop) throws(ClientError) -> MDNSDriver {
        let only = LANInterfaces.override(ChatCommand.environment("CHATCLI_MDNS_INTERFACES"))
        return try MDNSDriver(loop: loop, interfaces: LANInterfaces.eligible(LinkInterface.all(), only: only))
    }

    // MARK: create --lan

    static func create(expiresIn: Int, args: ParsedArguments, printer: EventPrinter, iceServers: [ICEServerEntry]) -> Int32 {
        let loop: EventLoop
        let endpoint: SignalingService
        let mdns: MDNSDriver
        do {
            loop = try EventLoop()
            var config = ServerConfiguration()
            config.host = "::"
            config.port = 0
            config.embedded = true
            endpoint = try SignalingService(loop: loop, config: config)
            try endpoint.start()
            mdns = try driver(loop: loop)
        } catch let error as ClientError {
            printer.emit(.error(error))
            return 1
        } catch {
            printer.emit(.error(.lan(.cannotStart(what: "the local signaling endpoint", reason: "\(error)"))))
            return 1
        }
        guard let port = endpoint.port, let server = ServerURL("http://127.0.0.1:\(port)") else { return 1 }
        let advertiser = LANAdvertiser(driver: mdns, name: args.value("name") ?? "chat", port: port)
        return ChatCommand.chat(mode: .create(expiresIn: expiresIn), server: server, printer: printer, args: args,
                                iceServers: iceServers, saving: unsaved, identity: ChatCommand.ChatIdentity(), on: loop) { manager in
            manager.options.fallbackSTUN = false
            manager.linkLocalCandidates = true
            manager.options.inviteServer = ChatEvent.lanInvite
            let saved = manager.onSession
            manager.onSession = { update in
                saved?(update)
                advertiser.handle(update)
            }
            let finished = manager.onFinish
            manager.onFinish = { status in
                advertiser.withdraw()
                mdns.close()
                finished?(status)
            }
        }
    }

    // MARK: join CODE --lan

    /// The chat is found by the locator's proof; the code's secret words, if
    /// typed, run the PAKE with the creator as through a server.
    static func joinChat(code pairing: PairingCode, args: ParsedArguments, printer: EventPrinter, iceServers: [ICEServerEntry]) -> Int32 {
        let code = pairing.locator
        let loop: EventLoop
        let mdns: MDNSDriver
        do {
            loop = try EventLoop()
            mdns = try driver(loop: loop)
        } catch let error as ClientError {
            printer.emit(.error(error))
            return 1
        } catch {
            printer.emit(.error(.lan(.cannotStart(what: "looking for the chat", reason: "\(error)"))))
            return 1
        }
        var outcome: LANFinder.Outcome?
        var interrupted: Int32?
        let finder = LANFinder(loop: loop, driver: mdns, code: code)
        finder.onOutcome = { result in
            outcome = result
            loop.stop()
        }
        do {
            try loop.onSignal([SIGINT, SIGTERM]) { signal in
                interrupted = 128 + signal
                loop.stop()
            }
        } catch {
            return 1
        }
        printer.emit(.progress("Looking for the chat on the local network…"))
        finder.start()
        loop.run()
        mdns.close()
        if let interrupted { return interrupted }
        switch outcome {
        case .found(let server):
            return ChatCommand.chat(mode: .join(code: code), server: server, printer: printer, args: args,
                                    iceServers: iceServers, saving: unsaved, identity: ChatCommand.ChatIdentity(),
                                    secret: pairing.secret, on: loop) { manager in
                manager.options.fallbackSTUN = false
                manager.linkLocalCandidates = true
            }
        case .failed(let error):
            printer.emit(.error(error))
            return 1
        case nil:
            return 1
        }
    }

    // MARK: chatcli lan

    static func list(_ args: ParsedArguments) -> Int32 {
        let json = args.has("json")
        let watch = args.has("watch")
        let text = args.value("wait") ?? "2"
        guard let wait = Int(text), (1...60).contains(wait) else {
            Output.write("chatcli: --wait takes a number of seconds from 1 to 60, not '\(text)'\n", to: 2)
            return 2
        }
        let loop: EventLoop
        let mdns: MDNSDriver
        do {
            loop = try EventLoop()
            mdns = try driver(loop: loop)
        } catch let error as ClientError {
            Output.write("chatcli: \(error.message)\n", to: 2)
            return 1
        } catch {
            Output.write("chatcli: \(ClientError.lan(.cannotStart(what: "listening on the local network", reason: "\(error)")).message)\n", to: 2)
            return 1
        }
        var status: Int32 = 0
        do {
            try loop.onSignal([SIGINT, SIGTERM]) { signal in
                status = watch ? 0 : 128 + signal
                loop.stop()
            }
        } catch {
            return 1
        }
        var shown: [String: String] = [:]
        func line(_ event: String, _ name: String) -> String {
            json ? JSON.object([("event", .string(event)), ("name", .string(name))]).serialized
                : (event == "lan_chat" ? "" : "gone: ") + TerminalText.sanitize(name)
        }
        func current() -> [String: String] {
            Dictionary(LANService.waiting(mdns.services().map(\.service)).map { ($0.instance, $0.name) }, uniquingKeysWith: { a, _ in a })
        }
        mdns.browse(LANService.type)
        if watch {
            mdns.onChange = {
                let now = current()
                for (instance, name) in now where shown[instance] == nil { Output.write(line("lan_chat", name) + "\n", to: 1) }
                for (instance, name) in shown where now[instance] == nil { Output.write(line("lan_chat_gone", name) + "\n", to: 1) }
                shown = now
            }
        } else {
            if !json { Output.write("Listening on the local network for \(wait) s…\n", to: 2) }
            loop.schedule(after: .seconds(Int64(wait))) {
                let now = current()
                for name in now.values.sorted() { Output.write(line("lan_chat", name) + "\n", to: 1) }
                if now.isEmpty && !json { Output.write("No chat is waiting on the local network.\n", to: 2) }
                if !now.isEmpty && !json { Output.write("Join one with its code: chatcli join CODE --lan\n", to: 2) }
                loop.stop()
            }
        }
        loop.run()
        mdns.close()
        return status
    }
}

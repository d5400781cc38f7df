import ChatClient
import ChatRuntime
import DTLS
import FileTransfer
import Glibc
import Runtime
import Signaling
import Terminal
import Wire

/// `chatcli send PATH...` and `chatcli receive CODE`: a chat session with no
/// chat in it, running `FileTransfers` on its connection. The sender creates
/// the room (and prints the code), offers each path on its own channel and
/// leaves once the receiver confirmed them all; the receiver joins, answers
/// the offers and stays until the sender leaves.
enum TransferCommand {
    static func usage(_ message: String) -> Int32 {
        Output.write("chatcli: \(message)\n", to: 2)
        return 2
    }

    static func send(_ args: ParsedArguments) -> Int32 {
        let text = args.value("expires") ?? "3600"
        guard let seconds = Int(text), (60...86400).contains(seconds) else {
            return usage("--expires takes a number of seconds from 60 to 86400, not '\(text)'")
        }
        guard args.positionals.filter({ $0 == "-" }).count <= 1 else { return usage("standard input (-) can be sent only once") }
        let streamName = args.value("name") ?? "stdin"
        guard (try? SafePath(name: streamName)) != nil else {
            return usage("--name takes a plain file name (no '/', control characters or '..'), not '\(streamName)'")
        }
        var sources: [(TransferSource, [String])] = []
        for path in args.positionals {
            if path == "-" {
                sources.append((StreamSource(name: streamName), []))
                continue
            }
            do {
                let source = try DiskSource(path: path)
                do {
                    _ = try SafePath(name: source.offer.name)
                } catch {
                    Output.write("chatcli: \(path) has a name a receiver would refuse: \(error)\n", to: 2)
                    return 1
                }
                sources.append((source, source.skipped))
            } catch {
                Output.write("chatcli: \(error.message)\n", to: 2)
                return 1
            }
        }
        let files = FileTransfers { _ in StreamSink(fd: -1) }
        #if DEBUG
        // The test build only: the end-to-end test of a detected hash mismatch. Not in release builds.
        files.corruptChunk = ChatCommand.environment("CHATCLI_TEST_CORRUPT_CHUNK").flatMap { Int($0) }
        #endif
        var outcome = Outcome(expected: sources.count)
        var ending = TransferEnding(isSender: true)
        return run(mode: .create(expiresIn: seconds), args: args, eventsFD: 1, files: files, outcome: &outcome, ending: &ending) { manager in
            for (source, skipped) in sources { manager.sendFile(source, skipped: skipped) }
        } onUpdate: { update, manager in
            switch update {
            case .offered(let id, _): manager.declineFile(id, reason: "this peer only sends")
            default: break
            }
        }
    }

    static func receive(_ args: ParsedArguments) -> Int32 {
        let raw = args.positionals.joined(separator: " ")
        guard let pairing = PairingCode(userInput: raw) else {
            return usage(ClientError.invalidCode(raw).message)
        }
        let code = pairing.locator
        let out = args.value("out") ?? "."
        let toStdout = out == "-"
        if !toStdout {
            var st = stat()
            guard stat(out, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { return usage("--out \(out): no such folder") }
        }
        let overwrite = args.has("overwrite")
        // The whole code as typed: a rerun of the same command finds the room it saved (ReceiveResume).
        let wholeCode = pairing.secret.map { "\(code)-\($0)" }
        let saved = wholeCode.flatMap { toStdout ? nil : ReceiveResume.load(directory: out, locator: code, code: $0) }
        let files = FileTransfers { _ -> TransferSink in WriteBehindSink(toStdout ? StreamSink(fd: 1) : DiskSink(directory: out, overwrite: overwrite)) }
        files.autoAccept = args.has("yes")
        let asker = OfferQuestion(files: files)
        var outcome = Outcome(expected: nil)
        var ending = TransferEnding(isSender: false, code: wholeCode ?? code, directory: out)
        ending.rejoining = saved != nil
        let mode: ChatManager.Mode = saved.map { .resumeRoom(roomID: $0.roomID, deviceID: $0.deviceID) } ?? .join(code: code)
        // With --out -, standard output carries the file: events go to stderr.
        let status = run(mode: mode, args: args, eventsFD: toStdout ? 2 : 1, files: files, outcome: &outcome, ending: &ending,
                         question: asker) { manager in
            asker.loop = manager
            manager.options.codeSecret = pairing.secret   // the whole code: the PAKE proves the sender
            manager.options.codeLocator = code
            if saved != nil {
                // Back in the saved room: a sender still waiting renegotiates at once; one
                // that has gone leaves the room empty, and waiting there would be forever.
                manager.eventLoop.schedule(after: TransferEnding.rejoinDeadline) { [weak manager] in
                    guard let manager, manager.phase == .waitingForPeer else { return }
                    manager.leaveNow()
                }
            }
            guard let wholeCode, !toStdout else { return }
            manager.onSession = { update in
                guard case .joined(_, let roomID, let deviceID, _) = update else { return }
                ReceiveResume(roomID: roomID, deviceID: deviceID).save(directory: out, locator: code, code: wholeCode)
            }
        } onUpdate: { update, manager in
            guard case .offered(let id, _) = update, !files.autoAccept, files.pendingOffers.contains(id) else { return }
            asker.ask(id)
        }
        // Ended by itself (not killed): nothing is left to rejoin.
        if !toStdout { ReceiveResume.remove(directory: out, locator: code) }
        return status
    }

    /// How the transfers ended, for the exit status.
    struct Outcome {
        var expected: Int?
        var finished = 0
        var failed = 0
        var allDone: Bool { expected.map { finished + failed >= $0 } ?? false }
        var status: Int32 { failed == 0 && finished > 0 && (expected.map { finished >= $0 } ?? true) ? 0 : 1 }
    }

    static func run(mode: ChatManager.Mode, args: ParsedArguments, eventsFD: Int32, files: FileTransfers, outcome: inout Outcome,
                    ending: inout TransferEnding, question: OfferQuestion? = nil,
                    start: (ChatManager) -> Void, onUpdate: @escaping (FileTransfers.Update, ChatManager) -> Void) -> Int32 {
        let json = args.has("json")
        // `receive LINK`: a pasted invite link names its server; --server still wins.
        let linkServer: String? = if case .create = mode { nil } else { PairingCode(userInput: args.positionals.joined(separator: " "))?.linkServer }
        let serverText = args.value("server") ?? linkServer ?? ChatCommand.environment("CHATCLI_SERVER") ?? Commands.defaultServer
        guard let server = ServerURL(serverText) else {
            return usage("'\(serverText)' is not a server URL: use http://HOST:PORT or https://HOST")
        }
        guard let iceServers = ICEServerOptions.entries(args) else { return 2 }
        let loop: EventLoop
        let connector: Connector
        let certificate: DTLSCertificate
        do {
            loop = try EventLoop()
            connector = try Connector(loop: loop, server: server, caFile: args.value("ca-file"))
            certificate = try DTLSCertificate()
        } catch {
            Output.write("chatcli: cannot start: \(error)\n", to: 2)
            return 1
        }
        let printer = EventPrinter(jsonMode: json)
        let progress = TransferPrinter(jsonMode: json, jsonFD: eventsFD)
        let isSender = { if case .create = mode { true } else { false } }()
        var said = ending
        said.receiverCanRejoin = isSender   // every code `send` prints has a secret part
        printer.sink = { event in
            progress.clearBar()
            // A question waiting for its answer stays the last line: notices go above it.
            question?.clearLine()
            defer { question?.redraw() }
            switch event {
            case .error: said.errorShown = true
            case .peerLeft: said.peerLeft = true
            case .code(let code, _, let server): said.code = code + (server.map { " --server \($0)" } ?? "")
            default: break
            }
            switch event {
            case .message, .controlReady, .control: return   // no chat here
            case .code(let code, _, let server) where !json:
                let option = server.map { " --server \($0)" } ?? ""
                Output.write("Your code: \(code)\nOn the other machine, run:  chatcli receive \(code)\(option)\n", to: 2)
            case .peerLeft where !isSender:
                return
            case .peerAway where !json:
                // Not the chat's "what you type waits": say what waits, and what brings the peer back.
                Output.write((isSender ? said.receiverAway : said.senderAway) + "\n", to: 2)
            default:
                if json {
                    if let object = event.json { Output.write(object.serialized + "\n", to: eventsFD) }
                } else if let sentence = event.sentence {
                    Output.write(sentence + "\n", to: 2)
                }
            }
        }
        let manager = ChatManager(loop: loop, connector: connector, mode: mode, onEvent: printer.emit)
        manager.options.extraICEServers = iceServers
        // One certificate for every connection of this process: a connection
        // rebuilt after the server restarted shows the certificate the code
        // proved, so the peer that typed the code goes on instead of failing.
        manager.certificate = certificate
        manager.options.relayOnly = args.has("relay-only")
        manager.options.unproven = args.has("accept-unproven") ? .accept : .refuse
        if ChatCommand.environment("CHATCLI_DEBUG_SESSION") != nil { manager.trace = { Output.write($0 + "\n", to: 2) } }
        // A receiver killed mid-transfer comes back as a new process (`receive CODE`
        // again, ReceiveResume) with a new certificate: the code proves it again.
        // Nothing is saved for a transfer, so nothing is pinned either.
        manager.options.reprovesByCode = isSender
        manager.options.pinsPeer = false
        manager.options.announcesLeave = false
        if server.description != Commands.defaultServer { manager.options.inviteServer = server.description }
        manager.attach(files)
        var result = outcome
        manager.onTransfer = { [unowned manager] update in
            switch update {
            case .offered, .sending: said.offers += 1
            case .accepted: said.accepted += 1
            case .finished(_, _, _, let mismatches, _, _): if mismatches == 0 { result.finished += 1 } else { result.failed += 1 }
            case .failed: result.failed += 1
            case .declined:
                result.failed += 1
                said.declined += 1
            case .progress(_, _, let done, _, _, _) where done > 0: said.partial = true
            default: break
            }
            said.finished = result.finished
            said.failed = result.failed
            // While the peer is away nothing moves: no bar falling to 0 B/s under the sentence that says why.
            if case .progress = update, manager.phase == .peerAway { return }
            question?.clearLine()
            progress.print(update)
            question?.redraw()
            onUpdate(update, manager)
            if isSender, result.allDone { manager.quit() }
        }
        do {
            try loop.onSignal([SIGINT, SIGTERM]) { manager.interrupt(signal: $0) }
        } catch {
            Output.write("chatcli: cannot start: \(error)\n", to: 2)
            return 1
        }
        start(manager)
        let status = manager.run()
        progress.clearBar()
        outcome = result
        ending = said
        if let closing = said.closing(interrupted: status >= 128) { Output.write(closing + "\n", to: 2) }
        if status >= 128 { return status }
        if !isSender, result.finished + result.failed == 0 { return 1 }
        if !files.isIdle { return 1 }
        return result.status
    }
}

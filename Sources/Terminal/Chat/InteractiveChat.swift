import ChatClient
import ChatRuntime
import Glibc
import Runtime

/// The chat for a person at a terminal: readline in callback mode on the
/// event loop, every session event printed above the prompt (timestamped,
/// peer text sanitized) without disturbing the half-typed line, a prompt
/// that shows the connection state, and slash commands.
public final class InteractiveChat {
    let loop: EventLoop
    let manager: ChatManager
    let printer: EventPrinter
    public let editor: LineEditor
    let style: ChatStyle
    var watch: Watch?
    /// Redraws the prompt now and then: delivery changes the waiting count
    /// without an event.
    var promptRefresh: Timer?
    static let promptRefreshInterval: Duration = .milliseconds(500)
    let started: Instant
    var connectedAt: Instant?
    var everConnected = false
    var expires: String?
    var safetyWords = SafetyWords()
    var myName: String?
    var peerName: String?
    var lastInterrupt: Instant?
    /// A question for a secret in the prompt line (the store passphrase), if one waits.
    var secret: SecretQuestion?
    /// File transfers on this chat (`/send`, `/accept`), when wired.
    public var files: FileTransfers? {
        didSet { manager.onTransfer = { [weak self] in self?.transferUpdate($0) } }
    }
    /// The last message shortened on screen, for `/show`.
    var lastFolded: (time: String, kind: ChatStyle.Kind, text: String)?
    /// The most screen lines one message takes before it is folded.
    static let foldedLines = 6
    static let interruptWindow: Duration = .seconds(2)

    /// Both standard input and output are terminals, and no `--json`.
    public static func wanted(json: Bool) -> Bool {
        !json && isatty(0) == 1 && isatty(1) == 1
    }

    public init(loop: EventLoop, manager: ChatManager, printer: EventPrinter, environment: [String: String]) {
        self.loop = loop
        self.manager = manager
        self.printer = printer
        style = ChatStyle(colors: ChatStyle.colorsWanted(isTerminal: true, environment: environment))
        started = loop.now
        editor = LineEditor(prompt: "")
    }

    public func start() throws(RuntimeError) {
        LineEditor.useUTF8Locale()
        editor.onLine = { [weak self] in self?.handle(line: $0) }
        editor.onEnd = { [weak self] in self?.quit() }
        printer.sink = { [weak self] in self?.handle($0) }
        editor.install()
        updatePrompt()
        watch = try loop.watchReadable(fd: 0) { [weak self] in self?.readInput() }
        show(.notice, "Type a message and press Enter; /help lists the commands.")
        refreshPromptLater()
    }

    private func refreshPromptLater() {
        promptRefresh = loop.schedule(after: Self.promptRefreshInterval) { [weak self] in
            guard let self, self.watch != nil else { return }
            self.updatePrompt()
            self.refreshPromptLater()
        }
    }

    /// Restores the terminal; safe to call more than once.
    public func stop() {
        finishSecret(with: nil)
        watch?.cancel()
        watch = nil
        promptRefresh?.cancel()
        promptRefresh = nil
        printer.sink = nil
        editor.uninstall()
    }

    /// Ctrl-C: the first clears the line; a second within two seconds leaves.
    public func interrupt() {
        if secret != nil {
            // Ctrl-C at the question skips it; the chat goes on.
            finishSecret(with: nil)
            return
        }
        let now = loop.now
        if let last = lastInterrupt, now - last < Self.interruptWindow {
            manager.interrupt(signal: SIGINT)
            return
        }
        lastInterrupt = now
        editor.clearLine()
        show(.notice, "Press Ctrl-C again within 2 seconds to leave (or type /quit).")
    }

    func show(_ kind: ChatStyle.Kind, _ text: String) {
        editor.print(style.line(time: ClockTime.now(), kind, text))
    }

    /// The invite link, and its QR code when the terminal is wide enough.
    func showInvite(_ link: String) {
        show(.notice, "Or open this link in a browser: \(link)")
        guard let qr = printer.inviteQRCode(link) else { return }
        editor.print(qr.terminalLines(colors: style.colors).joined(separator: "\n"))
    }

    /// A message (sanitized already), folded to `foldedLines` screen lines
    /// when longer, with a notice saying how to see the rest.
    func showMessage(_ kind: ChatStyle.Kind, _ text: String) {
        let time = ClockTime.now()
        let fold = MessageFold.fold(text, columns: editor.columns, firstColumn: ChatStyle.textColumn(time: time, kind),
                                    indent: ChatStyle.continuationColumn(time: time), maxLines: Self.foldedLines)
        editor.print(style.line(time: time, kind, fold.shown))
        guard fold.hiddenLines > 0 else { return }
        lastFolded = (time, kind, text)
        show(.notice, fold.notice)
    }

    /// `/show`: the last folded message in full.
    func showFolded() {
        guard let lastFolded else {
            show(.notice, "Nothing is folded.")
            return
        }
        editor.print(style.line(time: lastFolded.time, lastFolded.kind, lastFolded.text))
    }

    func updatePrompt() {
        guard secret == nil else { return }   // the question keeps the prompt line
        let prompt = style.prompt(manager.phase, reconnecting: everConnected, verified: safetyWords.verified,
                                  waiting: manager.undeliveredMessages, transfers: transferStatus)
        guard prompt != editor.prompt else { return }
        editor.setPrompt(prompt)
    }

    // MARK: Session events

    private func handle(_ event: ChatEvent) {
        switch event {
        case .message(let text):
            showMessage(.peer(name: peerName ?? "peer"), TerminalText.sanitize(text))
        case .code(let code, let expires, _):
            self.expires = expires
            show(.important, event.sentence ?? "")
            if let link = printer.inviteLink(code) { showInvite(link) }
        case .connected(let info, let auth):
            connected(sas: info.sas, verified: auth != .none, sentence: event.sentence ?? "")
        case .unproven(let sas, let reason):
            unproven(sas: sas, reason: reason)
        case .peerLeft, .peerAway, .peerBack, .peerNotAnswering, .reconnected, .peerBehind, .peerCaughtUp, .gap:
            show(.important, event.sentence ?? "")
        case .error, .notSent, .refused, .undelivered:
            show(.error, event.sentence ?? "")
        case .controlReady:
            if let myName { manager.sendControl(.name(myName)) }
        case .control(let message):
            control(message)
        case .closed:
            break
        case .member(_, let name, .message(let text)):
            showMessage(.peer(name: DisplayName.clean(name) ?? "member"), TerminalText.sanitize(text))
        case .member(_, _, let inner):
            if let sentence = event.sentence { show(inner.isResult ? .important : .notice, sentence) }
        case .waiting, .peerJoined, .ice, .progress, .notice:
            if let sentence = event.sentence { show(.notice, sentence) }
        }
        // The session changes its state right after it reports the event.
        updatePrompt()
        loop.execute { [weak self] in self?.updatePrompt() }
    }

    private func connected(sas newSAS: String, verified: Bool, sentence: String) {
        everConnected = true
        if connectedAt == nil { connectedAt = loop.now }
        show(.important, sentence)
        if let (kind, text) = safetyWords.connected(sas: newSAS, alreadyVerified: verified) { show(kind, text) }
    }

    /// SSH's unknown-host prompt: nothing crosses until the person accepts the peer.
    private func unproven(sas: String, reason: UnprovenReason) {
        guard manager.options.unproven == .ask else {
            // One line: the connected sentence right after shows the words and how to compare them.
            show(.error, "The code did not prove your peer (\(reason.rawValue)); accepted with --accept-unproven.")
            return
        }
        safetyWords.awaiting(sas: sas)
        show(.error, reason.explanation + " Nothing is sent or shown until you accept this peer.")
        show(.important, "Safety words: \(sas)")
        show(.notice, "Read them to your peer over a call or in person. The same words on both screens: type /verify ok to start the chat. "
             + "Different words: someone may be in the middle; type /leave.")
    }

    private func control(_ message: ControlMessage) {
        switch message {
        case .name(let raw):
            guard let name = DisplayName.clean(raw), name != peerName else { return }
            show(.notice, peerName.map { "\($0) is now called \(name)." } ?? "Your peer is called \(name).")
            peerName = name
        case .verified(let theirs):
            if let theirs, theirs != safetyWords.current {
                show(.error, "Your peer marked different safety words as verified (\(TerminalText.sanitize(theirs))) than yours (\(safetyWords.current ?? "none yet")). "
                     + "Someone may be in the middle: compare them again aloud, or /leave.")
            } else {
                show(.important, "Your peer verified the safety words: they read them aloud with you and they matched.")
            }
        }
    }
}

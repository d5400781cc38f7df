import ChatClient
import ChatRuntime
import Runtime

/// What a typed line does: send a message, or run a slash command.
extension InteractiveChat {
    func handle(line: String) {
        guard let input = ChatInput(line: line) else { return }
        switch input {
        case .message(let text):
            send(text)
        case .command(let command):
            run(command)
        case .usage(let sentence):
            show(.error, sentence)
        case .unknown(let name):
            show(.error, "\(TerminalText.sanitize(name)) is not a command (nothing was sent). Type /help for the list, or //text to send text starting with a slash.")
        }
    }

    private func send(_ text: String) {
        if manager.phase == .peerLeft {
            // Shown above the prompt, not put back into the line: a `/quit` typed
            // next would be appended to it and sent as text again, never run.
            show(.error, "Not sent: your peer left the chat (\"\(TerminalText.sanitize(text))\"). Type /quit to leave.")
            return
        }
        guard text.utf8.count <= ChatManager.maxMessageBytes else {
            show(.error, "Not sent: a message can be at most \(ChatManager.maxMessageBytes) bytes.")
            return
        }
        showMessage(.own, TerminalText.sanitize(text))
        manager.send(line: text)
        if manager.phase == .unproven {
            show(.notice, "Not sent yet: your peer is not verified. Compare the safety words (/verify), then /verify ok to start, or /leave.")
        } else if !manager.phase.isConnected {
            show(.notice, manager.phase == .peerAway
                 ? "Your peer is away: it will be sent when they are back."
                 : "Not connected yet: it will be sent once the connection is up.")
        }
        updatePrompt()
    }

    /// `/quit` and Ctrl-D: say first what has not reached the peer (the
    /// session waits for it), then leave.
    func quit() {
        let waiting = manager.undeliveredMessages
        if waiting > 0 {
            show(.important, Self.undeliveredNotice(waiting, peerLeft: manager.phase == .peerLeft))
        }
        manager.quit()
    }

    public static func undeliveredNotice(_ count: Int, peerLeft: Bool) -> String {
        let one = count == 1
        let messages = one ? "1 message" : "\(count) messages"
        if peerLeft { return "\(messages) never reached your peer: they left." }
        return "\(messages) \(one ? "has" : "have") not reached your peer yet: chatcli leaves once \(one ? "it has" : "they have") "
            + "(/leave leaves now without \(one ? "it" : "them"))."
    }

    private func run(_ command: SlashCommand) {
        switch command {
        case .help: show(.notice, SlashCommand.helpText)
        case .quit: quit()
        case .leave: manager.leaveNow()
        case .clear: editor.clearScreen()
        case .show: showFolded()
        case .status:
            // In a group each member has its own path: /who lists them.
            show(.notice, manager.group != nil ? whoReport() : statusReport().lines.joined(separator: "\n"))
        case .who: show(.notice, whoReport())
        case .verifyMember(let name, let ok):
            verifyMember(name, ok: ok)
        case .to(let rest):
            guard manager.group != nil else { return show(.error, "/to is for group chats: in this chat everything goes to your peer.") }
            manager.send(line: "/to " + rest)
        case .verify:
            // Each pair has its own words; a group's connections are proven by the code (see /who).
            if manager.group != nil {
                show(.notice, "In a group each member has its own safety words: /verify @NAME shows them; /who says which members the code proved.")
            } else {
                showSafetyWords()
            }
        case .verifyOK:
            if manager.group != nil {
                show(.error, "In a group, say whose words you compared: /verify ok @NAME (see /who).")
            } else {
                markVerified()
            }
        case .name(let raw): rename(raw)
        case .send(let path): offer(path)
        case .accept(let id): answer(id, accept: true)
        case .decline(let id): answer(id, accept: false)
        case .cancel(let id): cancelTransfer(id)
        }
        updatePrompt()
    }

    func statusReport() -> StatusReport {
        let now = loop.now
        var report = StatusReport(state: ChatStyle.label(manager.phase, reconnecting: everConnected, verified: safetyWords.verified),
                                  sessionAge: now - started)
        if let pair = manager.selectedPair {
            report.path = (pair.path, pair.local.summary, pair.remote.summary)
            report.rttMilliseconds = pair.rttMilliseconds
        } else if everConnected {
            report.pathGone = manager.phase == .peerLeft ? "your peer left" : manager.phase == .peerAway ? "your peer is away" : "reconnecting"
        }
        report.fileBytes = files?.bytesMoved
        report.counters = manager.counters
        report.waiting = manager.undeliveredMessages
        report.connectedFor = connectedAt.map { now - $0 }
        report.expires = expires
        report.peerName = peerName
        return report
    }

    private func showSafetyWords() {
        guard let sas = safetyWords.current else {
            show(.notice, "Not connected yet: the safety words appear once the connection is up.")
            return
        }
        show(.important, "Safety words: \(sas)")
        show(.notice, """
            Read them aloud to your peer over a channel you trust (a call, or in person) and listen to theirs.
            The same words on both screens mean nobody is in the middle: then type /verify ok.
            Different words: someone may be intercepting; type /leave.
            """ + (safetyWords.verified ? "\nYou have already verified them." : ""))
    }

    private func markVerified() {
        guard let sas = safetyWords.markVerified() else {
            show(.error, "Not connected yet: there are no safety words to verify.")
            return
        }
        manager.peerVerifiedByWords(sas: sas)
        let told = manager.sendControl(.verified(sas: sas))
        show(.important, "Marked your peer as verified." + (told ? " They have been told." : " (Their app cannot be told.)"))
    }

    private func rename(_ raw: String) {
        guard let name = DisplayName.clean(raw) else {
            show(.error, "That name has nothing printable in it; try another.")
            return
        }
        myName = name
        if manager.sendControl(.name(name)) {
            show(.notice, "Your peer now sees you as \(name).")
        } else if everConnected {
            show(.notice, "You are \(name) (your peer's app does not take names).")
        } else {
            show(.notice, "You are \(name); your peer will see it once connected.")
        }
    }
}

extension InteractiveChat {
    /// `/verify NAME` shows that member's words; `/verify ok NAME` accepts them (both sides must).
    func verifyMember(_ name: String, ok: Bool) {
        guard let group = manager.group else {
            return show(.error, "Type /verify to see the safety words, or /verify ok once you compared them and they matched.")
        }
        guard let member = group.member(named: name), let words = group.safetyWords(of: member) else {
            return show(.error, "No connection with \(TerminalText.sanitize(name)) to verify (see /who).")
        }
        let who = TerminalText.sanitize(name)
        guard ok else { return show(.important, "Safety words with \(who): \(words) — compare them with \(who) aloud, then /verify ok @\(who).") }
        if manager.verifyGroupMember(member) {
            show(.notice, "Marked \(who)'s words as compared; lines cross once \(who) does the same.")
        } else {
            show(.error, "Could not mark \(who)'s words: the connection changed; see /verify @\(who).")
        }
    }

    /// `/who`: one line per other member of a group room.
    func whoReport() -> String {
        guard let group = manager.group else { return "/who lists the members of a group room; this chat is between two people (see /status)." }
        let members = group.who
        guard !members.isEmpty else { return "Nobody else is here yet." }
        return members.map { member in
            let name = DisplayName.clean(member.name) ?? "member"
            let state: String
            switch member.phase {
            case .connected(let path)?: state = path == "relay" ? "relay" : "direct"
            case nil: state = "left"
            case .peerAway?: state = "away"
            case .unproven?: state = "unproven"
            default: state = "connecting"
            }
            let rtt = member.rttMilliseconds.map { ", \($0) ms" } ?? ""
            return "  \(name): \(state)\(rtt)\(member.verified ? ", verified" : ", not verified")"
        }.joined(separator: "\n")
    }
}

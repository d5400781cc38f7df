/// A line typed in the interactive chat: a message, or a slash command.
/// A line starting with `//` is a message with one slash removed, so any
/// text can be sent; an unknown `/word` is never sent (typos stay private).
public enum ChatInput: Equatable, Sendable {
    case message(String)
    case command(SlashCommand)
    /// A command used wrongly: the sentence says how to use it.
    case usage(String)
    /// An unknown `/word`: shown with a hint, never sent.
    case unknown(String)

    /// Nil for a line with nothing to send (empty, or only spaces).
    public init?(line: String) {
        if line.allSatisfy({ $0 == " " || $0 == "\t" }) { return nil }
        if line.hasPrefix("//") {
            self = .message(String(line.dropFirst()))
            return
        }
        guard line.hasPrefix("/") else {
            self = .message(line)
            return
        }
        let words = line.dropFirst().split(whereSeparator: { $0 == " " || $0 == "\t" })
        let name = words.first.map { $0.lowercased() } ?? ""
        if name == "send" {
            // The path verbatim: file names may hold runs of spaces.
            let path = line.dropFirst(5).drop(while: { $0 == " " || $0 == "\t" })
            self = path.isEmpty ? .usage("Type /send followed by a file or folder, e.g. /send ~/report.pdf.") : .command(.send(String(path)))
            return
        }
        let rest = words.dropFirst().joined(separator: " ")
        self = Self.command(name, rest)
    }

    private static func command(_ name: String, _ rest: String) -> ChatInput {
        switch name {
        case "to":
            return rest.contains(" ") ? .command(.to(rest)) : .usage("Type /to followed by a member's name and the message, e.g. /to bob see you at 5.")
        case "name":
            return rest.isEmpty ? .usage("Type /name followed by the name your peer should see, e.g. /name Alice.") : .command(.name(rest))
        case "verify":
            switch rest.lowercased() {
            case "": return .command(.verify)
            case "ok": return .command(.verifyOK)
            default:
                // In a group: `/verify @NAME`, `/verify ok @NAME`, one member's words.
                if rest.lowercased().hasPrefix("ok @"), rest.count > 4 { return .command(.verifyMember(String(rest.dropFirst(4)), ok: true)) }
                if rest.hasPrefix("@"), rest.count > 1, !rest.contains(" ") { return .command(.verifyMember(String(rest.dropFirst()), ok: false)) }
                return .usage("Type /verify to see the safety words, or /verify ok once you compared them and they matched.")
            }
        case "accept", "decline", "cancel":
            let id: Int?
            if rest.isEmpty {
                id = nil
            } else if let n = Int(rest.hasPrefix("#") ? String(rest.dropFirst()) : rest), n > 0 {
                id = n
            } else {
                return .usage("Type /\(name) alone for the latest transfer, or /\(name) N for transfer #N.")
            }
            return .command(name == "accept" ? .accept(id) : name == "decline" ? .decline(id) : .cancel(id))
        default:
            guard let command = SlashCommand.simple[name] else { return .unknown("/" + name) }
            return rest.isEmpty ? .command(command) : .usage("/\(name) takes no arguments.")
        }
    }
}

public enum SlashCommand: Equatable, Sendable {
    case help, quit, leave, status, verify, verifyOK, clear, show, who
    case name(String)
    /// `/verify @NAME`, `/verify ok @NAME`: in a group, one member's safety words.
    case verifyMember(String, ok: Bool)
    /// `/to NAME TEXT`: in a group, a message for one member only.
    case to(String)
    /// `/send PATH`: offer a file or folder.
    case send(String)
    /// `/accept [N]`, `/decline [N]`, `/cancel [N]`: nil means the latest.
    case accept(Int?), decline(Int?), cancel(Int?)

    static let simple: [String: SlashCommand] = [
        "help": .help, "quit": .quit, "leave": .leave, "status": .status, "clear": .clear, "show": .show, "who": .who,
    ]

    /// `/help`.
    public static let helpText = """
        Commands:
          /help          this list
          /status        the path to your peer, round trip, messages and bytes each way, session age
          /who           in a group: each member, its path, round trip, and whether the code proved it
          /verify @NAME, /verify ok @NAME   in a group: that member's safety words; mark them compared
          /to NAME TEXT  in a group: a message for that member only
          /verify        show the safety words and how to compare them with your peer
          /verify ok     after comparing aloud: mark your peer verified and tell them (starts a chat the code did not prove)
          /name NAME     the name your peer sees for you
          /send PATH     offer a file or folder to your peer (progress shows in the prompt); in a group
                         to every member, /send @NAME PATH to one
          /accept [N]    accept the offer your peer made (the latest, or #N); /decline [N] refuses it
          /cancel [N]    stop a transfer in either direction (what arrived is kept for a resume)
          /show          the last long message in full (a message over \(InteractiveChat.foldedLines) lines is folded)
          /clear         clear the screen
          /leave         close the connection and leave the room now
          /quit          leave once what you typed has reached your peer (also Ctrl-D)
          //text         send a message that starts with a slash (one slash is removed)
        Ctrl-C clears the line you are typing; a second Ctrl-C within 2 seconds leaves.
        """
}

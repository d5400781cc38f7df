/// `chatcli help --man`: the manual page chatcli(1) in roff (man macros),
/// rendered from the command specs so it never lists a stale option.
/// `Tools/install` saves it as share/man/man1/chatcli.1.
enum ManPage {
    static func render() -> String {
        var out: [String] = [
            #".TH CHATCLI 1 "" "chatcli \#(Version.string)" "User Commands""#,
            // No hyphenation, left-aligned: option names must never be split.
            ".nh", ".ad l",
            ".SH NAME",
            #"chatcli \- ephemeral, end-to-end encrypted peer-to-peer chat for the terminal"#,
            ".SH SYNOPSIS",
        ]
        for spec in Commands.all {
            out += [".PP", ".B chatcli " + escape(spec.name)]
            let rest = (spec.arguments.isEmpty ? [] : [escape(spec.arguments)]) + spec.options.map { escape($0.usage) }
            if !rest.isEmpty { out.append(rest.joined(separator: " ")) }
        }
        out += [".PP", ".B chatcli", #"\-V | \-\-version | \-h | \-\-help"#]
        out += [".SH DESCRIPTION"] + paragraphs("""
            Two people chat end to end encrypted over a direct WebRTC data channel (or a TURN relay): one runs \
            'chatcli create' and gives the code it prints (six digits and two words, like 123456-brave-calm) \
            to the other, who runs 'chatcli join CODE'. Only the six digits reach the server; the words let \
            both sides prove to each other that they typed the same code, so nobody in the middle, the server \
            included, can read the chat unnoticed. Both must use the same signaling server (--server URL, or \
            CHATCLI_SERVER on both machines), which 'chatcli serve' runs. Messages are never stored; sessions \
            (server, code, room, device id, the session's own certificate and the peer's pinned one) are kept in \
            a passphrase-locked store so that a cut-off chat can be resumed with the same peer.
            """)
        out.append(".SH COMMANDS")
        for spec in Commands.all {
            out.append(".SS " + quoted("chatcli " + spec.name + (spec.arguments.isEmpty ? "" : " " + spec.arguments)))
            out += paragraphs(spec.summary)
            if !spec.details.isEmpty { out += paragraphs(spec.details) }
            for option in spec.options + [CommandSpec.helpOption] {
                out.append(".TP")
                out.append(option.valueName.map { ".BI " + quoted("--" + option.name + " ") + " " + escape($0) } ?? ".B " + escape("--" + option.name))
                out.append(escape(option.help))
            }
        }
        out.append(".SH ENVIRONMENT")
        for (name, meaning) in environment {
            out += [".TP", ".B " + name, escape(meaning)]
        }
        out += [".SH FILES"]
        for (path, meaning) in files {
            out += [".TP", ".I " + escape(path), escape(meaning)]
        }
        out.append(".SH EXAMPLES")
        for example in HelpText.examples {
            out += [".TP", ".B " + escape(example.command), escape(example.meaning[example.meaning.startIndex].uppercased() + example.meaning.dropFirst() + ".")]
        }
        out += [".SH EXIT STATUS"] + paragraphs(
            "0 normal end, 1 failure (one sentence on stderr), 2 usage error, 130 interrupted (Ctrl-C, SIGINT), "
                + "143 terminated (SIGTERM).")
        out += [".SH SEE ALSO", "The wire protocol: Sources/Signaling/Signaling.docc/WireProtocol.md in the chatcli sources."]
        return out.joined(separator: "\n") + "\n"
    }

    static let environment: [(String, String)] = [
        ("CHATCLI_SERVER", "The signaling server when --server is not given (default \(Commands.defaultServer))."),
        ("CHATCLI_PASSPHRASE", "The session store passphrase, when --passphrase-fd is not given."),
        ("CHATCLI_NEW_PASSPHRASE", "The new passphrase for 'chatcli sessions passwd'."),
        ("CHATCLI_KEY_CACHE_SECONDS", "How long the store key typed at a terminal stays cached in the session keyring without use (default 28800; 0 turns the cache off)."),
        ("CHATCLI_TURN_USERNAME", "Username for a TURN server given with --ice-server."),
        ("CHATCLI_TURN_PASSWORD", "Password for a TURN server given with --ice-server."),
        ("CHATCLI_TURN_SECRET", "The TURN shared secret for 'chatcli serve --turn-url' (or --turn-secret-file)."),
        ("CHATCLI_REDIS_PASSWORD", "The Redis password for 'chatcli serve --redis' (or --redis-password-file)."),
        ("CHATCLI_DEBUG_SESSION", "When set, create/join/resume/send/receive trace every signaling event, session action and peer event on stderr (for bug reports; it shows codes and addresses)."),
        ("CHATCLI_DEBUG_SCTP", "When set, every chat and transfer writes its SCTP state (window, flight, the peer's window, the congestion control's model, retransmissions) to stderr once a second while packets flow (for bug reports and benchmarks)."),
        ("XDG_DATA_HOME", "Where the session store lives (default ~/.local/share)."),
        ("XDG_STATE_HOME", "Where 'chatcli serve' keeps its rooms without --db (default ~/.local/state)."),
        ("NO_COLOR", "When set and not empty, the interactive chat uses no colours."),
    ]

    static let files: [(String, String)] = [
        ("$XDG_DATA_HOME/chatcli/sessions.v1", "The session store, sealed with a key derived from the passphrase."),
        ("$XDG_STATE_HOME/chatcli/rooms.db", "The server's room database (SQLite) without --db."),
    ]

    /// Text as roff paragraphs: blank lines separate paragraphs, lines that
    /// start with spaces (lists in the help) keep their own line.
    static func paragraphs(_ text: String) -> [String] {
        var out: [String] = [".PP"]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.allSatisfy({ $0 == " " }) {
                if out.last != ".PP" { out.append(".PP") }
            } else if line.hasPrefix(" ") {
                out += [".br", escape(String(line.drop { $0 == " " }))]
            } else {
                out.append(escape(String(line)))
            }
        }
        return out
    }

    /// Escapes roff's active characters: backslash, hyphens (so "--help"
    /// renders as typed, not with Unicode hyphens), non-ASCII characters,
    /// and a leading dot or quote, which would make the line a request.
    static func escape(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\e"
            case "-": result += "\\-"
            // groff reads Latin-1 unless told otherwise: anything else by code point.
            case _ where !scalar.isASCII: result += "\\[u" + hex(scalar.value) + "]"
            default: result.unicodeScalars.append(scalar)
            }
        }
        if result.hasPrefix(".") || result.hasPrefix("'") { result = "\\&" + result }
        return result
    }

    /// Four or more upper-case hex digits, as groff's \\[uXXXX] wants them.
    static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    static func quoted(_ text: String) -> String {
        "\"" + escape(text).replacing("\"", with: "\\(dq") + "\""
    }
}

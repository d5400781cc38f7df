/// `chatcli COMMAND --help` and `chatcli --help`, rendered from the specs.
extension CommandSpec {
    var helpText: String {
        let head = "Usage: chatcli \(name)" + (arguments.isEmpty ? "" : " \(arguments)")
        var lines = HelpText.wrap([head] + options.map(\.usage), hangingIndent: "Usage: chatcli \(name) ".count)
        if !usageNote.isEmpty { lines.append("       " + usageNote) }
        lines += ["", summary]
        if !details.isEmpty { lines += ["", details] }
        lines += ["", "Options:"]
        for o in options + [CommandSpec.helpOption] {
            let left = "  " + o.form
            let pad = left.count < 28 ? String(repeating: " ", count: 28 - left.count) : "\n" + String(repeating: " ", count: 28)
            lines.append(left + pad + o.help)
        }
        return lines.joined(separator: "\n")
    }
}

enum HelpText {
    /// What people run most, for `--help` and the man page's EXAMPLES.
    static let examples: [(command: String, meaning: String)] = [
        ("chatcli serve", "run a server (port 8080) for both of you"),
        ("chatcli create --server http://HOST:8080", "start a chat; prints a code like 123456-brave-calm"),
        ("chatcli join 123456-brave-calm --server http://HOST:8080", "join it on the other machine"),
        ("chatcli join http://HOST:8080/j/123456#brave-calm", "the same, with the invite link"),
        ("chatcli send photo.jpg notes/", "send files and folders; prints a code"),
        ("chatcli receive 123456-brave-calm", "receive them"),
        ("chatcli create --lan", "chat on this local network, no server"),
        ("chatcli resume 123456", "continue a saved chat that was cut off"),
        ("chatcli doctor --server http://HOST:8080", "check the server, the NAT and the relays"),
    ]

    /// Joins `items` with spaces into lines of at most `width` columns (an
    /// option and its value never part), the continuation lines indented so
    /// the options line up under the first.
    static func wrap(_ items: [String], width: Int = 100, hangingIndent: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in items {
            if !line.isEmpty, line.count + 1 + word.count > width, line.count > hangingIndent {
                lines.append(line)
                line = String(repeating: " ", count: hangingIndent)
            } else if !line.isEmpty, !line.allSatisfy({ $0 == " " }) {
                line += " "
            }
            line += word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// `chatcli --help`: every top-level command with its few words; the
    /// `sessions` family is one line (each subcommand has its own --help).
    static var main: String {
        var lines = [
            "chatcli — ephemeral, end-to-end encrypted peer-to-peer chat for the terminal.",
            "",
            "Usage:",
        ]
        var seen: Set<String> = []
        for spec in Commands.all {
            let top = String(spec.name.split(separator: " ")[0])
            guard seen.insert(top).inserted else { continue }
            let left: String
            if top == "sessions" {
                left = "chatcli sessions [SUBCOMMAND]"
            } else {
                left = "chatcli \(top)" + (spec.arguments.isEmpty ? "" : " \(spec.arguments)") + (spec.options.isEmpty ? "" : " [options]")
            }
            let pad = String(repeating: " ", count: max(2, 36 - left.count))
            lines.append("  " + left + pad + spec.brief)
        }
        lines += ["", "First, both people need the same server: run 'chatcli serve' on a machine both can reach",
                  "(or use one someone runs), and pass it with --server URL or CHATCLI_SERVER. On one local network,",
                  "--lan needs no server.", "", "Examples:"]
        lines += examples.map { "  " + $0.command + String(repeating: " ", count: max(2, 46 - $0.command.count)) + "# " + $0.meaning }
        lines += [
            "",
            "Run 'chatcli COMMAND --help' (or 'chatcli help COMMAND') for a command's options.",
            "Sessions are saved in a passphrase-locked store when a passphrase is available",
            "(--passphrase-fd N, CHATCLI_PASSPHRASE, or a prompt on a terminal).",
            "Both sides of a chat must use the same server: --server URL or CHATCLI_SERVER.",
            "Exit status: 0 normal end, 1 failure, 2 usage error, 130 interrupted (Ctrl-C), 143 terminated (SIGTERM).",
        ]
        return lines.joined(separator: "\n")
    }
}

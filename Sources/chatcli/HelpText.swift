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

/// A small argument parser in the swift-argument-parser style:
/// `--name value`, `--name=value`, repeatable options, flags, positionals,
/// `--` to end options. Errors say what was wrong; the caller exits 2.
struct OptionSpec {
    let name: String
    let valueName: String?
    let help: String
    var repeatable = false

    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, help: help)
    }

    static func value(_ name: String, _ valueName: String, _ help: String, repeatable: Bool = false) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help, repeatable: repeatable)
    }
}

struct UsageError: Error {
    let message: String
}

struct ParsedArguments {
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []

    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
    func has(_ name: String) -> Bool { flags.contains(name) }
}

struct CommandSpec {
    let name: String
    let usage: String
    let summary: String
    let options: [OptionSpec]
    let positionals: ClosedRange<Int>
    var details: String = ""

    var helpText: String {
        var lines = ["Usage: chatcli \(usage)", "", summary]
        if !details.isEmpty { lines += ["", details] }
        let all = options + [.flag("help", "Show this help.")]
        lines += ["", "Options:"]
        for o in all {
            let left = "  --\(o.name)" + (o.valueName.map { " \($0)" } ?? "")
            let pad = left.count < 28 ? String(repeating: " ", count: 28 - left.count) : "\n" + String(repeating: " ", count: 28)
            lines.append(left + pad + o.help)
        }
        return lines.joined(separator: "\n")
    }

    func parse(_ args: [String]) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var i = 0
        var optionsEnded = false
        while i < args.count {
            let arg = args[i]
            i += 1
            if optionsEnded || !arg.hasPrefix("--") || arg == "-" {
                if !optionsEnded, arg.hasPrefix("-"), arg != "-", arg.count > 1 {
                    throw UsageError(message: "unknown option '\(arg)' for 'chatcli \(name)' (options start with --; see 'chatcli \(name) --help')")
                }
                parsed.positionals.append(arg)
                continue
            }
            if arg == "--" { optionsEnded = true; continue }
            var key = String(arg.dropFirst(2))
            var inline: String? = nil
            if let eq = key.firstIndex(of: "=") {
                inline = String(key[key.index(after: eq)...])
                key = String(key[..<eq])
            }
            if key == "help" { parsed.flags.insert("help"); continue }
            guard let spec = options.first(where: { $0.name == key }) else {
                throw UsageError(message: "unknown option '--\(key)' for 'chatcli \(name)' (see 'chatcli \(name) --help')")
            }
            if spec.valueName == nil {
                guard inline == nil else { throw UsageError(message: "option '--\(key)' takes no value") }
                parsed.flags.insert(key)
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else {
                guard i < args.count else {
                    throw UsageError(message: "option '--\(key)' needs a value: --\(key) \(spec.valueName ?? "VALUE")")
                }
                value = args[i]
                i += 1
            }
            if !spec.repeatable, parsed.values[key] != nil {
                throw UsageError(message: "option '--\(key)' was given more than once")
            }
            parsed.values[key, default: []].append(value)
        }
        if parsed.has("help") { return parsed }
        if parsed.positionals.count < positionals.lowerBound {
            throw UsageError(message: "missing argument: usage is 'chatcli \(usage)'")
        }
        if parsed.positionals.count > positionals.upperBound {
            throw UsageError(message: "unexpected argument '\(parsed.positionals[positionals.upperBound])': usage is 'chatcli \(usage)'")
        }
        return parsed
    }
}

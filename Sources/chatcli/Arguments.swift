import Wire

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

    /// "--name VALUE", or "--name" for a flag.
    var form: String { "--\(name)" + (valueName.map { " \($0)" } ?? "") }

    /// As the usage line shows it: "[--name VALUE]", "[--name VALUE]..." when repeatable.
    var usage: String { "[\(form)]" + (repeatable ? "..." : "") }
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

/// One command: its name ("sessions rm"), positional arguments and options.
/// Everything shown to people — the usage line, `--help`, the man page and
/// the shell completions — is generated from these specs, so none of them
/// can forget an option.
struct CommandSpec {
    let name: String
    /// The positionals as the usage line shows them: "CODE", "OLD NEW".
    var arguments = ""
    /// A few words for the command list of `chatcli --help`.
    var brief = ""
    let summary: String
    let options: [OptionSpec]
    let positionals: ClosedRange<Int>
    var details: String = ""
    /// Said after the generated usage, e.g. the subcommands of `sessions`.
    var usageNote = ""

    /// `--help` is accepted by every command (and `-h`, which is not listed twice).
    static let helpOption = OptionSpec.flag("help", "Show this help (also -h).")

    /// Every option, each once, in the spec's order: "create [--expires SECONDS] [--server URL] [--ice-server URL]...".
    var usage: String {
        ([name] + (arguments.isEmpty ? [] : [arguments]) + options.map(\.usage)).joined(separator: " ")
    }

    /// The short form for error messages: "join CODE [options]".
    var shortUsage: String {
        ([name] + (arguments.isEmpty ? [] : [arguments]) + (options.isEmpty ? [] : ["[options]"])).joined(separator: " ")
    }

    func parse(_ args: [String]) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var i = 0
        var optionsEnded = false
        while i < args.count {
            let arg = args[i]
            i += 1
            // -h is the one short option: people type it by reflex.
            if !optionsEnded, arg == "-h" { parsed.flags.insert("help"); continue }
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
                let hint = Spelling.closest(to: key, in: options.map(\.name)).map { "did you mean '--\($0)'? " } ?? ""
                throw UsageError(message: "unknown option '--\(key)' for 'chatcli \(name)' (\(hint)see 'chatcli \(name) --help')")
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
            throw UsageError(message: "missing argument: usage is 'chatcli \(shortUsage)' (see 'chatcli \(name) --help')")
        }
        if parsed.positionals.count > positionals.upperBound {
            throw UsageError(message: "unexpected argument '\(parsed.positionals[positionals.upperBound])': usage is 'chatcli \(shortUsage)' (see 'chatcli \(name) --help')")
        }
        return parsed
    }
}

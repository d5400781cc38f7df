import ChatClient
import Terminal

/// `chatcli help [COMMAND [SUBCOMMAND]] [--man]`, `chatcli version` and
/// `chatcli completion bash|zsh`: everything they print is rendered from
/// the command specs.
enum AboutCommand {
    static func run(_ command: String, _ args: ParsedArguments) -> Int32 {
        switch command {
        case "version":
            Output.write("chatcli \(Version.string)\n", to: 1)
        case "completion":
            let shell = args.positionals[0]
            switch shell {
            case "bash": Output.write(Completion.bash, to: 1)
            case "zsh": Output.write(Completion.zsh, to: 1)
            default:
                return usage("'\(shell)' is not a shell chatcli completes; use one of: \(Commands.shells.joined(separator: ", "))")
            }
        default:
            return help(args)
        }
        return 0
    }

    private static func help(_ args: ParsedArguments) -> Int32 {
        if args.has("man") {
            guard args.positionals.isEmpty else { return usage("'chatcli help --man' prints the whole manual; it takes no command") }
            Output.write(ManPage.render(), to: 1)
            return 0
        }
        guard !args.positionals.isEmpty else {
            Output.write(HelpText.main + "\n", to: 1)
            return 0
        }
        let words = args.positionals
        guard let (spec, rest) = Commands.lookup(words), rest.isEmpty else {
            return usage("there is no command '\(words.joined(separator: " "))'; 'chatcli help' lists them")
        }
        Output.write(spec.helpText + "\n", to: 1)
        return 0
    }

    private static func usage(_ message: String) -> Int32 {
        Output.write("chatcli: \(message)\n", to: 2)
        return 2
    }
}

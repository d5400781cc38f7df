import ChatClient
import Glibc
import SessionStore
import Terminal
import Wire

/// Entry point: parse arguments, hand over to the command, exit with its status.
/// Usage errors exit 2 with one sentence; `--help` or `-h` anywhere prints help.
let arguments = Array(CommandLine.arguments.dropFirst())

func usageFailure(_ message: String) -> Never {
    Output.write("chatcli: \(message)\n", to: 2)
    exit(2)
}

guard let name = arguments.first else {
    Output.write(HelpText.main + "\n", to: 2)
    exit(2)
}
switch name {
case "--help", "-h":
    Output.write(HelpText.main + "\n", to: 1)
    exit(0)
case "--version", "-V":
    Output.write("chatcli \(Version.string)\n", to: 1)
    exit(0)
default:
    break
}
guard let (spec, rest) = Commands.lookup(arguments) else {
    let names = Commands.all.map(\.name).filter { !$0.contains(" ") }
    let hint = Spelling.closest(to: name, in: names).map { "did you mean 'chatcli \($0)'? " } ?? ""
    usageFailure("unknown command '\(name)'; \(hint)try 'chatcli --help'")
}
let parsed: ParsedArguments
do {
    parsed = try spec.parse(rest)
} catch {
    usageFailure(error.message)
}
if parsed.has("help") {
    Output.write(spec.helpText + "\n", to: 1)
    exit(0)
}
switch spec.name {
case "serve": exit(ServeCommand.run(parsed))
case "create", "join": exit(ChatCommand.run(parsed, join: spec.name == "join"))
case "lan": exit(LANCommand.list(parsed))
case "doctor": exit(DoctorCommand.run(parsed))
case "send": exit(TransferCommand.send(parsed))
case "receive": exit(TransferCommand.receive(parsed))
case "resume": exit(ResumeCommand.run(parsed))
case "lock":
    guard let store = StoreAccess.defaultStore() else { usageFailure("neither XDG_DATA_HOME nor HOME is set: there is no session store") }
    let dropped = StoreKeyCache(storePath: store.path).drop()
    Output.write(dropped ? "Locked: the next saved or resumed chat asks for the passphrase.\n"
                         : "Nothing to lock: no store key is cached in this login session.\n", to: 2)
    exit(0)
case "help", "version", "completion": exit(AboutCommand.run(spec.name, parsed))
case let sessions where sessions.hasPrefix("sessions"): exit(SessionsCommand.run(spec.name, parsed))
default: usageFailure("unknown command '\(name)'")
}

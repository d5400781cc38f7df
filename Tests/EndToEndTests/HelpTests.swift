import Foundation
import TestSupport
import Testing

/// Help, version and usage lines through the real binary: `help COMMAND`,
/// `-h`, `-V`, and usage lines that name every option of their command.
@Suite(.ownThread) struct HelpTests {
    func run(_ args: [String]) throws -> Finished {
        let p = try ChildProcess.chatcli(args, name: "chatcli " + args.joined(separator: " "))
        p.closeInput()
        let status = p.waitForExit(timeout: 20)
        return Finished(status: status, stdout: p.stdout, stderr: p.stderr, transcript: p.transcript)
    }

    /// Every command, as its words: ["create"], ["sessions", "rm"], …
    static let commands: [[String]] = [
        ["create"], ["join"], ["serve"], ["doctor"], ["resume"], ["sessions"], ["sessions", "rename"], ["sessions", "rm"],
        ["sessions", "erase"], ["sessions", "passwd"], ["help"], ["version"], ["completion"],
    ]

    @Test(arguments: commands)
    func helpCommandDashHAndDashDashHelpPrintTheSameHelp(command: [String]) throws {
        let long = try run(command + ["--help"])
        #expect(long.status == 0, "\(long.transcript)")
        #expect(long.stdout.first?.hasPrefix("Usage: chatcli \(command.joined(separator: " "))") == true, "\(long.transcript)")
        let short = try run(command + ["-h"])
        #expect(short.status == 0 && short.stdout == long.stdout, "\(short.transcript)")
        let viaHelp = try run(["help"] + command)
        #expect(viaHelp.status == 0 && viaHelp.stdout == long.stdout, "\(viaHelp.transcript)")
    }

    /// The usage line is generated from the options, so it names every one
    /// that the Options list below it explains.
    @Test(arguments: commands)
    func theUsageLineNamesEveryOption(command: [String]) throws {
        let help = try run(command + ["--help"])
        let lines = help.stdout
        let usageEnd = lines.firstIndex(where: { $0.isEmpty }) ?? lines.count
        let usage = lines[..<usageEnd].joined(separator: " ")
        let optionsStart = try #require(lines.firstIndex(of: "Options:"), "\(help.transcript)")
        let options = lines[(optionsStart + 1)...].compactMap { line -> String? in
            guard line.hasPrefix("  --") else { return nil }
            return String(line.dropFirst(2).prefix { $0 != " " })
        }
        #expect(!options.isEmpty)
        for option in options where option != "--help" {
            #expect(usage.contains("[\(option)"), "\(option) is missing from: \(usage)")
        }
    }

    @Test func serveAndClientUsageLinesNameTheOptionsTheyUsedToForget() throws {
        let serve = try run(["serve", "--help"]).stdout.prefix { !$0.isEmpty }.joined(separator: " ")   // the usage block
        for option in ["--turn-secret-file F", "--rate-limit N", "--log-addresses", "--tls-cert F", "--tls-key F"] {
            #expect(serve.contains(option), "\(serve)")
        }
        let create = try run(["create", "--help"]).stdout.prefix { !$0.isEmpty }.joined(separator: " ")
        for option in ["--ice-server URL]...", "--ca-file F", "--expires SECONDS"] {
            #expect(create.contains(option), "\(create)")
        }
    }

    @Test(arguments: [["-V"], ["--version"], ["version"]])
    func theVersionIsPrinted(args: [String]) throws {
        let result = try run(args)
        #expect(result.status == 0, "\(result.transcript)")
        #expect(result.stdout.count == 1 && result.stdout[0].range(of: #"^chatcli \d+\.\d+\.\d+"#, options: .regularExpression) != nil,
                "\(result.transcript)")
    }

    @Test func theMainHelpListsEveryCommandAndTheVersion() throws {
        for args in [["--help"], ["-h"], ["help"]] {
            let result = try run(args)
            #expect(result.status == 0, "\(result.transcript)")
            let text = result.stdout.joined(separator: "\n")
            for command in ["create", "join CODE", "serve", "doctor", "resume NAME", "sessions", "help", "version", "completion"] {
                #expect(text.contains("chatcli \(command)"), "\(command) is missing:\n\(text)")
            }
            #expect(text.contains("-V, --version"), "\(text)")
        }
    }

    /// What to run first, and examples, in `--help` and the man page (issue 29).
    @Test func helpAndTheManPageSayWhatToRunFirstWithExamples() throws {
        let help = try run(["--help"])
        let text = help.stdout.joined(separator: "\n")
        #expect(text.contains("First, both people need the same server: run 'chatcli serve'"), "\(text)")
        #expect(text.contains("Examples:\n  chatcli serve "), "\(text)")
        #expect(text.contains("  chatcli join 123456-brave-calm --server http://HOST:8080"), "\(text)")
        let man = try run(["help", "--man"]).stdout.joined(separator: "\n")
        let examples = try #require(man.range(of: ".SH EXAMPLES\n"), "\(man)")
        let section = man[examples.upperBound...].prefix { _ in true }.components(separatedBy: ".SH ")[0]
        #expect(section.contains(".B chatcli create \\-\\-server http://HOST:8080"), "\(section)")
        #expect(section.contains("Continue a saved chat that was cut off."), "\(section)")
    }

    @Test(arguments: [
        (["help", "nosuch"], "chatcli: there is no command 'nosuch'; 'chatcli help' lists them"),
        (["help", "sessions", "nosuch"], "chatcli: there is no command 'sessions nosuch'; 'chatcli help' lists them"),
        (["help", "create", "--man"], "chatcli: 'chatcli help --man' prints the whole manual; it takes no command"),
        (["completion", "fish"], "chatcli: 'fish' is not a shell chatcli completes; use one of: bash, zsh"),
        (["create", "-x"], "chatcli: unknown option '-x' for 'chatcli create' (options start with --; see 'chatcli create --help')"),
        (["join"], "chatcli: missing argument: usage is 'chatcli join CODE [options]' (see 'chatcli join --help')"),
        (["craete"], "chatcli: unknown command 'craete'; did you mean 'chatcli create'? try 'chatcli --help'"),
        (["join", "123456", "--sever", "http://x"], "chatcli: unknown option '--sever' for 'chatcli join' (did you mean '--server'? see 'chatcli join --help')"),
        (["join", "123", "456", "brave", "clam"], "chatcli: 'clam' is not one of the code's words (did you mean 'calm'?): check the code your peer gave you."),
        (["receive", "12345-brave-calm"], "chatcli: '12345-brave-calm' is not a join code: it must start with 6 digits, and '12345' has 5; a code is 6 digits and two words, like 123456-brave-calm (or the 6 digits alone)."),
        (["join", "123456-brave-calm-bold"], "chatcli: '123456-brave-calm-bold' is not a join code: it has 3 words after the digits, not 2; a code is 6 digits and two words, like 123456-brave-calm (or the 6 digits alone)."),
    ])
    func badHelpRequestsAreOneUsageSentence(args: [String], sentence: String) throws {
        let result = try run(args)
        #expect(result.status == 2, "\(result.transcript)")
        #expect(result.stderr == [sentence], "\(result.transcript)")
        #expect(result.stdout.isEmpty)
    }
}

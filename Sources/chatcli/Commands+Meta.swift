/// The commands about chatcli itself: help (and the man page), version and
/// shell completions. They are specs like the others so that the man page
/// and the completions list them too.
extension Commands {
    static let help = CommandSpec(
        name: "help",
        arguments: "[COMMAND]",
        brief: "show a command's help, or the manual page",
        summary: "Show the help of COMMAND (the same as 'chatcli COMMAND --help'; 'chatcli help sessions rm' for a subcommand), or the overview.",
        options: [.flag("man", "Print the whole manual as a man page (roff), e.g. for 'man -l -' or share/man/man1/chatcli.1.")],
        positionals: 0...2
    )

    static let version = CommandSpec(
        name: "version",
        brief: "print the version (also -V, --version)",
        summary: "Print chatcli's version.",
        options: [],
        positionals: 0...0
    )

    static let completion = CommandSpec(
        name: "completion",
        arguments: "bash|zsh",
        brief: "print a shell completion script",
        summary: "Print the completion script for bash or zsh (Tools/install installs both).",
        options: [],
        positionals: 1...1,
        details: """
            bash: source <(chatcli completion bash), or save it as ~/.local/share/bash-completion/completions/chatcli.
            zsh: save it as _chatcli in a directory of your $fpath.
            """
    )

    static let shells = ["bash", "zsh"]
}

import ChatClient
import Terminal

/// `--ice-server URL` (repeatable) for `create`, `join` and `doctor`: STUN
/// servers, and TURN servers for signaling servers that hand out none (an
/// Inviso server, say). TURN credentials come from the environment
/// (`CHATCLI_TURN_USERNAME`, `CHATCLI_TURN_PASSWORD`), never from the
/// command line, where `ps` would show them.
enum ICEServerOptions {
    /// The command's `--ice-server` entries, or nil once the usage error
    /// is on stderr (the command then exits 2).
    static func entries(_ args: ParsedArguments) -> [ICEServerEntry]? {
        do {
            return try entries(args.all("ice-server"), environment: ChatCommand.environment)
        } catch {
            Output.write("chatcli: \(error.message)\n", to: 2)
            return nil
        }
    }

    private static func entries(_ urls: [String], environment: (String) -> String?) throws(UsageError) -> [ICEServerEntry] {
        var stun: [String] = [], turn: [String] = []
        for text in urls {
            guard let url = ICEServerURL(text) else {
                throw UsageError(message: "'\(text)' is not a STUN/TURN URL: use stun:HOST:PORT, turn:HOST:PORT?transport=udp|tcp or turns:HOST:PORT")
            }
            switch url.scheme {
            case .stun:
                stun.append(text)
            case .turn, .turns:
                guard url.isSupportedTURN else {
                    throw UsageError(message: "'\(text)': TURN transport must be udp or tcp (turns: only tcp: TURN over DTLS is not supported)")
                }
                turn.append(text)
            case .stuns:
                throw UsageError(message: "'\(text)': stuns: is not supported; use stun:HOST:PORT")
            }
        }
        var entries = stun.isEmpty ? [] : [ICEServerEntry(urls: stun)]
        guard !turn.isEmpty else { return entries }
        guard let username = environment("CHATCLI_TURN_USERNAME"), !username.isEmpty,
              let password = environment("CHATCLI_TURN_PASSWORD"), !password.isEmpty
        else {
            throw UsageError(message: "\(turn[0]) needs credentials: set CHATCLI_TURN_USERNAME and CHATCLI_TURN_PASSWORD (never on the command line)")
        }
        entries.append(ICEServerEntry(urls: turn, username: username, credential: password))
        return entries
    }
}

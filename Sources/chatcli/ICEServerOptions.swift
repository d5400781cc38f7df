import ChatClient

/// `--ice-server URL` (repeatable) for `create`, `join` and `doctor`: STUN
/// servers, and TURN servers for signaling servers that hand out none (an
/// Inviso server, say). TURN credentials come from the environment
/// (`CHATCLI_TURN_USERNAME`, `CHATCLI_TURN_PASSWORD`), never from the
/// command line, where `ps` would show them.
enum ICEServerOptions {
    struct Invalid: Error {
        let message: String
    }

    static func entries(_ urls: [String], environment: (String) -> String?) throws(Invalid) -> [ICEServerEntry] {
        var stun: [String] = [], turn: [String] = []
        for text in urls {
            guard let url = ICEServerURL(text) else {
                throw Invalid(message: "'\(text)' is not a STUN/TURN URL: use stun:HOST:PORT, turn:HOST:PORT?transport=udp|tcp or turns:HOST:PORT")
            }
            switch url.scheme {
            case .stun:
                stun.append(text)
            case .turn, .turns:
                guard url.isSupportedTURN else {
                    throw Invalid(message: "'\(text)': TURN transport must be udp or tcp (turns: only tcp: TURN over DTLS is not supported)")
                }
                turn.append(text)
            case .stuns:
                throw Invalid(message: "'\(text)': stuns: is not supported; use stun:HOST:PORT")
            }
        }
        var entries = stun.isEmpty ? [] : [ICEServerEntry(urls: stun)]
        guard !turn.isEmpty else { return entries }
        guard let username = environment("CHATCLI_TURN_USERNAME"), !username.isEmpty,
              let password = environment("CHATCLI_TURN_PASSWORD"), !password.isEmpty
        else {
            throw Invalid(message: "\(turn[0]) needs credentials: set CHATCLI_TURN_USERNAME and CHATCLI_TURN_PASSWORD (never on the command line)")
        }
        entries.append(ICEServerEntry(urls: turn, username: username, credential: password))
        return entries
    }
}

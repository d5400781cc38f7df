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
                throw Invalid(message: "'\(text)' is not a STUN/TURN URL: use stun:HOST:PORT or turn:HOST:PORT?transport=udp|tcp")
            }
            switch url.scheme {
            case .stun:
                stun.append(text)
            case .turn:
                guard url.transport == nil || url.transport == "udp" || url.transport == "tcp" else {
                    throw Invalid(message: "'\(text)': TURN transport must be udp or tcp")
                }
                turn.append(text)
            case .stuns, .turns:
                throw Invalid(message: "'\(text)': TLS (stuns:/turns:) is not supported; use turn:HOST:PORT?transport=tcp")
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

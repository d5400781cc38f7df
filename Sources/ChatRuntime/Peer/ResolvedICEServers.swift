import ChatClient
import ICE
import Runtime
import STUN
import TURN

/// The STUN and TURN servers a peer connection uses, resolved to addresses.
/// TURN needs credentials: the signaling server's, or the user's from the
/// environment for `--ice-server turn:…` (never argv, where `ps` shows
/// them); a `turn:` URL without them is skipped. `turns:` is TURN over TLS
/// over TCP (RFC 8656 §3.1; DTLS, `?transport=udp`, is not supported);
/// `stuns:` is skipped.
public struct ResolvedICEServers: Sendable {
    public var stun: [SocketAddress] = []
    public var turn: [ICETURNServer] = []
    /// The `turn:` URL each of `turn` came from, for reports.
    public var turnURLs: [String] = []

    /// Resolves the host names on the calling thread (it blocks while DNS
    /// answers); on the event loop, use ``resolve(_:loop:_:)``.
    public init(_ entries: [ICEServerEntry]) {
        self.init(entries) { url in try? Resolver.resolve(host: url.host, port: url.port).first }
    }

    /// Resolves every host name at once off the loop (each with the
    /// resolver's deadline), then calls `completion` on the loop, on a later turn.
    public static func resolve(_ entries: [ICEServerEntry], loop: EventLoop,
                               _ completion: @escaping (ResolvedICEServers) -> Void) {
        func key(_ url: ICEServerURL) -> String { "\(url.host) \(url.port)" }
        var hosts: [String: ICEServerURL] = [:]
        for url in entries.flatMap(\.urls).compactMap(ICEServerURL.init) { hosts[key(url)] = url }
        var found: [String: SocketAddress] = [:]
        var waiting = hosts.count
        guard waiting > 0 else { return loop.execute { completion(ResolvedICEServers(entries) { _ in nil }) } }
        for (name, url) in hosts {
            Resolver.resolve(host: url.host, port: url.port, loop: loop) { result in
                found[name] = try? result.get().first
                waiting -= 1
                if waiting == 0 { completion(ResolvedICEServers(entries) { found[key($0)] }) }
            }
        }
    }

    init(_ entries: [ICEServerEntry], address: (ICEServerURL) -> SocketAddress?) {
        for entry in entries {
            for text in entry.urls {
                guard let url = ICEServerURL(text), let address = address(url) else { continue }
                switch url.scheme {
                case .stun:
                    stun.append(address)
                case .turn, .turns:
                    guard let username = entry.username, let password = entry.credential,
                          let server = STUNAddress(address), url.isSupportedTURN
                    else { continue }
                    let secure = url.scheme == .turns
                    turn.append(ICETURNServer(address: server, transport: secure || url.transport == "tcp" ? .tcp : .udp,
                                              username: username, password: password, tlsServerName: secure ? url.host : nil))
                    turnURLs.append(text)
                case .stuns:
                    continue
                }
            }
        }
    }
}

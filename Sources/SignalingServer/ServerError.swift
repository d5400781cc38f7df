/// Why the server could not start. `description` is the one sentence the
/// user sees (after "chatcli: "), so every case names the thing that failed
/// and why, never a Swift type or an SQLite code.
public enum ServerError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The room database could not be opened or prepared.
    case database(path: String, reason: String)
    /// No `--db` and no place for the default one.
    case noStateDirectory
    /// The default database's directory could not be created.
    case stateDirectory(path: String, reason: String)
    case tlsCertificate(reason: String)
    case notAnAddress(host: String)
    case cannotListen(reason: String)

    public var description: String {
        switch self {
        case .database(let path, let reason):
            return "cannot open the room database \(path): \(reason)"
        case .noStateDirectory:
            return "cannot choose a place for the room database: neither XDG_STATE_HOME nor HOME is set (use --db PATH)"
        case .stateDirectory(let path, let reason):
            return "cannot create the directory \(path) for the room database: \(reason) (or use --db PATH)"
        case .tlsCertificate(let reason):
            return "cannot use the TLS certificate: \(reason)"
        case .notAnAddress(let host):
            return "'\(host)' is not an IP address to listen on (use 0.0.0.0, ::, or an interface address)"
        case .cannotListen(let reason):
            return "cannot listen: \(reason)"
        }
    }
}

import Glibc

/// Where `chatcli serve` keeps its rooms without `--db`, and the plain reason
/// a given path cannot hold the database.
///
/// The default follows the XDG Base Directory spec: rooms are state (they
/// should survive a restart but are not worth a backup), so
/// `$XDG_STATE_HOME/chatcli/rooms.db`, else `~/.local/state/chatcli/rooms.db`,
/// never the current directory (where a server started from anywhere would
/// leave a stray file and lose its rooms when started from elsewhere).
public enum RoomDatabasePath {
    /// The default path; nil without `XDG_STATE_HOME` (absolute) or `HOME`.
    public static func standard(environment: [String: String]) -> String? {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/chatcli/rooms.db" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.local/state/chatcli/rooms.db" }
        return nil
    }

    /// Creates the default path's missing directories, each 0700 (the spec
    /// asks for 0700, and room codes are secrets while they live).
    public static func prepareDirectory(of path: String) throws(ServerError) {
        let directory = parent(of: path)
        var built = ""
        for component in directory.split(separator: "/") {
            built += "/" + component
            if mkdir(built, 0o700) != 0 && errno != EEXIST {
                throw .stateDirectory(path: directory, reason: reason(errno))
            }
        }
        var info = stat()
        guard stat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw .stateDirectory(path: directory, reason: "it is not a directory")
        }
    }

    /// Why SQLite could not open `path`, in words: its message ("unable to
    /// open database file") never says which part is wrong.
    public static func problem(with path: String) -> String? {
        guard path != ":memory:", !path.hasPrefix("file:") else { return nil }
        let directory = parent(of: path)
        var info = stat()
        if stat(directory, &info) != 0 {
            return errno == ENOENT || errno == ENOTDIR ? "no such directory" : reason(errno)
        }
        if info.st_mode & S_IFMT != S_IFDIR { return "\(directory) is not a directory" }
        if stat(path, &info) == 0 {
            if info.st_mode & S_IFMT == S_IFDIR { return "it is a directory" }
            if access(path, R_OK | W_OK) != 0 { return reason(errno) }
        }
        // SQLite also writes PATH-wal and PATH-shm next to the file.
        if access(directory, W_OK | X_OK) != 0 { return "cannot write in \(directory) (\(reason(errno)))" }
        return nil
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func reason(_ code: Int32) -> String {
        String(cString: strerror(code)).lowercased()
    }
}

import Glibc

/// The embedded relay's secret when the operator gave none: kept beside the
/// room database (`<db>.turn-secret`, mode 0600), so a restart keeps the
/// credentials clients already hold valid, as it keeps their rooms.
/// Without it, every relayed chat would fail its reallocation with 401.
enum RelaySecretFile {
    static func path(forDatabase database: String) -> String { database + ".turn-secret" }

    /// The stored secret, or a fresh one written there; nil if neither can
    /// be done (the caller falls back to a secret for this run only).
    static func loadOrCreate(database: String, fresh: () -> [UInt8]) -> [UInt8]? {
        let path = path(forDatabase: database)
        if let file = fopen(path, "r") {
            defer { fclose(file) }
            var bytes = [UInt8](repeating: 0, count: 64)
            let count = fread(&bytes, 1, bytes.count, file)
            if count >= 16 { return Array(bytes.prefix(count)) }
        }
        let secret = fresh()
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        let written = secret.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == secret.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            return nil
        }
        return secret
    }
}

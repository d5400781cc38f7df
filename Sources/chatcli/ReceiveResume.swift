import FileTransfer
import Glibc
import Wire

/// What lets `chatcli receive CODE`, killed mid-transfer, continue when the
/// same command runs again while the sender still waits: the room and the
/// device id the server seated it with, saved beside the `.part` files
/// (`OUT/.chatcli-receive-123456`, mode 0600) as soon as the code is
/// accepted. The rerun rejoins that room (as `chatcli resume` does for a
/// chat), and the code's secret proves it again to the sender (a second
/// PAKE on the new connection), so only the code's holder gets back in.
///
/// Saved only for a code with a secret part (the digits alone prove
/// nothing) and an output folder (a stream on standard output cannot
/// continue). Any receive that ends by itself removes it: after a decline,
/// a finished file, a failure or the sender leaving there is nothing to
/// rejoin; only a process killed mid-transfer leaves it behind.
struct ReceiveResume: Equatable {
    let roomID: String
    let deviceID: String

    /// The file for `locator` in `directory`.
    static func path(directory: String, locator: String) -> String {
        (directory.hasSuffix("/") ? directory : directory + "/") + ".chatcli-receive-" + locator
    }

    /// Binds the saved room to the whole code: the same six digits with
    /// another secret (a later `send` that drew them) is another transfer.
    static func codeDigest(_ code: String) -> String {
        Hex.encode(SHA256.hash(Array(("chatcli receive resume\n" + code).utf8)))
    }

    /// The saved room for `code`, if one was saved for exactly this code.
    static func load(directory: String, locator: String, code: String) -> ReceiveResume? {
        let fd = open(path(directory: directory, locator: locator), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = read(fd, &buffer, buffer.count)
        guard n > 0, n < buffer.count else { return nil }
        let lines = String(decoding: buffer[..<n], as: UTF8.self).split(separator: "\n").map(String.init)
        guard lines.count == 3, lines[2] == codeDigest(code), Self.isToken(lines[0]), Self.isToken(lines[1]) else { return nil }
        return ReceiveResume(roomID: lines[0], deviceID: lines[1])
    }

    /// Room ids are hex and device ids `[A-Za-z0-9_-]`, 8…128 characters: nothing else is taken from the file.
    static func isToken(_ text: String) -> Bool {
        (8...128).contains(text.utf8.count) && text.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F
        }
    }

    /// Written to a temporary file, then renamed over the old one: a kill
    /// -9 at any moment leaves the old file or the new one, never half.
    func save(directory: String, locator: String, code: String) {
        let final = Self.path(directory: directory, locator: locator)
        let temporary = final + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return }
        let text = Array("\(roomID)\n\(deviceID)\n\(Self.codeDigest(code))\n".utf8)
        let written = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == text.count, synced, rename(temporary, final) == 0 else {
            unlink(temporary)
            return
        }
    }

    static func remove(directory: String, locator: String) {
        unlink(path(directory: directory, locator: locator))
    }
}

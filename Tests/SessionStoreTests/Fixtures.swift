import Glibc
import Wire

@testable import SessionStore

/// A fresh directory under /tmp, removed (recursively) when the value dies.
final class ScratchDirectory {
    let path: String

    init() {
        var template = Array("/tmp/chatcli-store-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buf in buf.baseAddress.flatMap { mkdtemp($0) } }
        path = made.map { String(cString: $0) } ?? "/tmp/chatcli-store-fallback-\(getpid())-\(random())"
        if made == nil { mkdir(path, 0o700) }
    }

    deinit { removeTree(path) }

    private func removeTree(_ dir: String) {
        if let d = opendir(dir) {
            var names: [String] = []
            while let e = readdir(d) {
                let name = withUnsafePointer(to: &e.pointee.d_name) {
                    $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
                }
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(d)
            for name in names {
                let child = dir + "/" + name
                var st = stat()
                if lstat(child, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR { removeTree(child) } else { unlink(child) }
            }
        }
        rmdir(dir)
    }
}

/// Tests use libsodium's minimum Argon2id cost so each open takes microseconds.
func makeStore(_ scratch: ScratchDirectory, lockTimeout: Double = 5) -> SessionStore {
    SessionStore(directory: scratch.path + "/chatcli", kdf: .minimum, lockTimeout: lockTimeout)
}

func secret(_ text: String) -> SecureBytes { SecureBytes(copying: Array(text.utf8)) }

func sampleRecord(_ name: String = "alice", code: String = "493817", device: String = "dev-9f2c7a11b3e4d5c6")
    -> SessionRecord
{
    SessionRecord(
        name: name, serverURL: "https://signal.example.org", code: code,
        roomID: "7d1f0e2a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c", role: .creator, status: .accepted,
        created: 1_760_000_000, expires: 1_760_003_600, deviceIDs: [device, device + "-2"])
}

func fileBytes(_ path: String) -> [UInt8]? { try? FileIO.readFile(path) }

func writeBytes(_ bytes: [UInt8], to path: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return }
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

func fileMode(_ path: String) -> mode_t? {
    var st = stat()
    guard stat(path, &st) == 0 else { return nil }
    return st.st_mode & 0o7777
}

func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, haystack.count >= needle.count else { return false }
    for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
        if Array(haystack[i..<(i + needle.count)]) == needle { return true }
    }
    return false
}

/// A store on disk holding two sessions, and its bytes.
func populatedStore(_ scratch: ScratchDirectory, passphrase: String = "correct horse") throws -> (SessionStore, [UInt8]) {
    let store = makeStore(scratch)
    try store.withLockedStore(passphrase: secret(passphrase)) { c throws(SessionStoreError) in
        try c.add(sampleRecord("alice"))
        try c.add(sampleRecord("bob", code: "120044", device: "dev-77aa55bb33cc11dd"))
        c.queuePurge(server: "https://signal.example.org", deviceIDs: ["dev-old-0123456789"])
    }
    return (store, fileBytes(store.path) ?? [])
}

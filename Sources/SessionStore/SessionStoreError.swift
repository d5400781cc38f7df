import Glibc

/// Everything that can go wrong with the session store, each case one sentence
/// a user can act on. In every failure case the store file on disk is left as
/// it was.
public enum SessionStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The key check in the header does not match the key from this passphrase.
    case wrongPassphrase
    /// The header is intact and the passphrase is right, but the sealed
    /// contents fail authentication: the file was altered or damaged.
    case tampered
    /// The file ends early (a header or payload shorter than it says).
    case truncated
    /// The file is not a readable store (bad magic, damaged header, bad payload).
    case corrupted(reason: String)
    /// The file was written by a newer chatcli with this format version.
    case newerVersion(Int)
    /// A write failed for lack of space (ENOSPC, EDQUOT).
    case noSpace(path: String)
    /// The operating system refused access (EACCES, EPERM, EROFS).
    case permissionDenied(path: String)
    /// Any other system call failure.
    case io(operation: String, path: String, errno: Int32)
    /// Another chatcli held the store lock for longer than the timeout.
    case lockTimeout(path: String)
    /// Another process has this session open (its pid, when it could be read).
    case sessionOpenElsewhere(name: String, pid: Int32?)
    /// Key derivation failed (typically: not enough memory for Argon2id).
    case keyDerivationFailed
    /// A session with this name already exists.
    case nameInUse(String)
    /// No session has this name.
    case unknownSession(String)
    /// Names must be 1…64 printable characters without control codes.
    case invalidName(String)
    /// No passphrase could be obtained (no terminal, no env var, no fd).
    case passphraseUnavailable
    /// The user ended the prompt with Ctrl-D (or the terminal went away).
    case passphraseCancelled
    /// The user pressed Ctrl-C at the prompt (the command exits 130).
    case passphraseInterrupted
    /// The two entries of a new passphrase differ.
    case passphraseMismatch
    /// An empty passphrase was given.
    case passphraseEmpty
    /// The passphrase is longer than the reader accepts.
    case passphraseTooLong(max: Int)

    public var description: String {
        switch self {
        case .wrongPassphrase:
            return "wrong passphrase for the session store"
        case .tampered:
            return "the session store was altered or damaged (authentication failed); it was not changed"
        case .truncated:
            return "the session store file is truncated; it was not changed"
        case .corrupted(let reason):
            return "the session store file is corrupted (\(reason)); it was not changed"
        case .newerVersion(let n):
            return "this store was written by a newer chatcli (format \(n)); upgrade chatcli"
        case .noSpace(let path):
            return "no space left on the device holding \(path); your sessions are unchanged"
        case .permissionDenied(let path):
            return "permission denied for \(path); check its owner and mode (the store must be yours, mode 0600)"
        case .io(let op, let path, let e):
            return "\(op) failed for \(path): \(String(cString: strerror(e))); your sessions are unchanged"
        case .lockTimeout(let path):
            return "another chatcli is holding the session store lock (\(path)); try again when it is done"
        case .sessionOpenElsewhere(let name, let pid):
            let holder = pid.map { "another chatcli (pid \($0))" } ?? "another chatcli"
            return "session \"\(name)\" is open in \(holder); continue it there, or end that one first"
        case .keyDerivationFailed:
            return "could not derive the store key (Argon2id needs more memory than is available)"
        case .nameInUse(let name):
            return "a session named \"\(name)\" already exists; choose another name"
        case .unknownSession(let name):
            return "no session named \"\(name)\"; `chatcli sessions` lists them"
        case .invalidName(let name):
            return "invalid session name \"\(name)\": use 1 to 64 printable characters"
        case .passphraseUnavailable:
            return "no passphrase available: set CHATCLI_PASSPHRASE, use --passphrase-fd N, or run on a terminal"
        case .passphraseCancelled:
            return "passphrase entry cancelled"
        case .passphraseInterrupted:
            return "interrupted at the passphrase prompt"
        case .passphraseMismatch:
            return "the two passphrases differ; nothing was changed"
        case .passphraseEmpty:
            return "the passphrase is empty"
        case .passphraseTooLong(let max):
            return "the passphrase is longer than \(max) bytes"
        }
    }

    /// Maps a failed system call's errno to the case a user can act on.
    public static func fromErrno(_ e: Int32, operation: String, path: String) -> SessionStoreError {
        switch e {
        case ENOSPC, EDQUOT, EFBIG: return .noSpace(path: path)
        case EACCES, EPERM, EROFS: return .permissionDenied(path: path)
        default: return .io(operation: operation, path: path, errno: e)
        }
    }
}

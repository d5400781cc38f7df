import Glibc

/// The one error type of the Runtime module: a system call failure (with its
/// errno), a timeout, a TLS failure or a name resolution failure, each with a
/// sentence a person can act on, e.g. "connect to 127.0.0.1:9: connection refused".
public struct RuntimeError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A system call failed with this errno.
        case system(errno: Int32)
        /// An operation did not finish before its deadline.
        case timedOut
        /// TLS handshake, certificate or record failure.
        case tls
        /// getaddrinfo could not resolve a name.
        case resolve
        /// An argument could not be used (bad address, missing file...).
        case invalidArgument
    }

    public let kind: Kind
    /// The short reason, without context: "connection refused".
    public let reason: String
    /// What was being attempted, if known: "connect to 127.0.0.1:9".
    public let context: String?

    public init(kind: Kind, reason: String, context: String? = nil) {
        self.kind = kind
        self.reason = reason
        self.context = context
    }

    public var description: String {
        guard let context else { return reason }
        return "\(context): \(reason)"
    }

    /// The errno for system errors, nil otherwise.
    public var errno: Int32? {
        if case .system(let code) = kind { return code }
        return nil
    }

    /// Returns the same error with `context` prefixed (keeps an existing one).
    public func with(context: String) -> RuntimeError {
        RuntimeError(kind: kind, reason: reason, context: self.context ?? context)
    }

    static func system(_ code: Int32, _ context: String? = nil) -> RuntimeError {
        RuntimeError(kind: .system(errno: code), reason: sentence(forErrno: code), context: context)
    }

    /// The current thread's errno as an error.
    static func lastErrno(_ context: String? = nil) -> RuntimeError {
        system(Glibc.errno, context)
    }

    static func timedOut(_ context: String? = nil) -> RuntimeError {
        RuntimeError(kind: .timedOut, reason: "timed out", context: context)
    }

    static func tls(_ reason: String, _ context: String? = nil) -> RuntimeError {
        RuntimeError(kind: .tls, reason: reason, context: context)
    }

    static func invalid(_ reason: String, _ context: String? = nil) -> RuntimeError {
        RuntimeError(kind: .invalidArgument, reason: reason, context: context)
    }

    /// Lower-case sentences for the errors users actually meet; strerror for the rest.
    static func sentence(forErrno code: Int32) -> String {
        switch code {
        case ECONNREFUSED: return "connection refused"
        case ECONNRESET: return "connection reset by peer"
        case EADDRINUSE: return "address already in use"
        case EADDRNOTAVAIL: return "address not available on this machine"
        case ETIMEDOUT: return "timed out"
        case EHOSTUNREACH: return "host unreachable"
        case ENETUNREACH: return "network unreachable"
        case EPIPE: return "connection closed by peer (broken pipe)"
        case EACCES: return "permission denied"
        case EAFNOSUPPORT: return "address family not supported (is IPv6 disabled?)"
        case EMFILE, ENFILE: return "too many open files"
        default:
            guard let text = strerror(code) else { return "error \(code)" }
            return String(cString: text).lowercased()
        }
    }
}

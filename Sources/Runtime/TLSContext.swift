import COpenSSL
import CShims
import Glibc

/// Shared TLS configuration (an OpenSSL `SSL_CTX`): trust anchors for a
/// client, certificate and key for a server. Create once, use for every
/// ``TLSStream``. TLS 1.2 is the minimum in both roles.
public final class TLSContext {
    let pointer: OpaquePointer
    public let isServer: Bool

    private init(pointer: OpaquePointer, isServer: Bool) {
        self.pointer = pointer
        self.isServer = isServer
    }

    deinit {
        SSL_CTX_free(pointer)
    }

    /// A client context that verifies servers against `caFile` (PEM), or
    /// against the system CA store when nil. Hostname verification is per
    /// stream (see ``TLSStream/init(client:over:serverName:)``).
    public static func client(caFile: String?) throws(RuntimeError) -> TLSContext {
        guard let ctx = SSL_CTX_new(TLS_client_method()) else {
            throw .tls(openSSLReason(), "create TLS client context")
        }
        let context = TLSContext(pointer: ctx, isServer: false)
        try context.applyCommonSettings()
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
        if let caFile {
            try checkReadable(caFile, what: "CA file")
            ERR_clear_error()
            guard SSL_CTX_load_verify_locations(ctx, caFile, nil) == 1 else {
                throw .tls(openSSLReason(), "load CA file \(caFile)")
            }
        } else {
            ERR_clear_error()
            guard SSL_CTX_set_default_verify_paths(ctx) == 1 else {
                throw .tls(openSSLReason(), "load the system CA store")
            }
        }
        return context
    }

    /// A server context presenting `certFile` (PEM chain, leaf first) with
    /// the private key in `keyFile` (PEM).
    public static func server(certFile: String, keyFile: String) throws(RuntimeError) -> TLSContext {
        try checkReadable(certFile, what: "certificate file")
        try checkReadable(keyFile, what: "private key file")
        guard let ctx = SSL_CTX_new(TLS_server_method()) else {
            throw .tls(openSSLReason(), "create TLS server context")
        }
        let context = TLSContext(pointer: ctx, isServer: true)
        try context.applyCommonSettings()
        ERR_clear_error()
        guard SSL_CTX_use_certificate_chain_file(ctx, certFile) == 1 else {
            throw .tls("not a valid PEM certificate (\(openSSLReason()))", "certificate file \(certFile)")
        }
        guard SSL_CTX_use_PrivateKey_file(ctx, keyFile, SSL_FILETYPE_PEM) == 1 else {
            let reason = openSSLReason()
            if reason == "key values mismatch" {
                throw .tls("the private key does not match the certificate", "private key file \(keyFile)")
            }
            throw .tls("not a valid PEM private key (\(reason))", "private key file \(keyFile)")
        }
        guard SSL_CTX_check_private_key(ctx) == 1 else {
            throw .tls("the private key does not match the certificate", "private key file \(keyFile)")
        }
        return context
    }

    private func applyCommonSettings() throws(RuntimeError) {
        guard cshims_SSL_CTX_set_min_proto_version(pointer, TLS1_2_VERSION) == 1 else {
            throw .tls(Self.openSSLReason(), "set minimum TLS version")
        }
        // Idle connections give their 34 KiB of record buffers back: the
        // server holds thousands of mostly idle WebSockets.
        _ = cshims_SSL_CTX_set_mode(pointer, Int(SSL_MODE_RELEASE_BUFFERS))
    }

    private static func checkReadable(_ path: String, what: String) throws(RuntimeError) {
        guard access(path, R_OK) == 0 else {
            let code = Glibc.errno
            let reason = code == ENOENT ? "no such file" : RuntimeError.sentence(forErrno: code)
            throw RuntimeError.invalid(reason, "\(what) \(path)")
        }
    }

    /// The oldest queued OpenSSL error as a short reason, clearing the queue
    /// (it is per thread and would otherwise leak into the next connection).
    static func openSSLReason() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "unknown TLS error" }
        if let reason = ERR_reason_error_string(code) {
            return String(cString: reason)
        }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

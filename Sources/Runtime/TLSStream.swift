import COpenSSL
import CShims
import Glibc

/// TLS over any ``ByteStream`` (normally a ``TCPConnection``), with OpenSSL
/// driven through memory BIOs: ciphertext from the transport is written into
/// one BIO, ciphertext OpenSSL produces is drained from the other and written
/// to the transport. OpenSSL never touches the socket, so the loop stays in
/// charge of all I/O and this type works over any stream (tests use pairs).
///
/// The stream follows the ``ByteStream`` contract. Writes before the
/// handshake completes are queued. A failed handshake closes the stream with
/// an error such as "TLS handshake with localhost: certificate verify
/// failed: hostname mismatch". There is no handshake timeout here: callers
/// bound it (``connect(loop:to:serverName:context:timeout:completion:)``
/// does; a server should close connections idle for too long).
public final class TLSStream: ByteStream {
    public let transport: ByteStream
    public var onData: (([UInt8]) -> Void)?
    public var onClose: ((RuntimeError?) -> Void)?
    public var onDrain: (() -> Void)?
    /// Called once when the handshake succeeds (a failure goes to `onClose`).
    public var onHandshakeComplete: (() -> Void)?
    public private(set) var isHandshakeComplete = false

    private let context: TLSContext
    private let ssl: OpaquePointer
    private let networkIn: OpaquePointer
    private let networkOut: OpaquePointer
    private let peerName: String
    private var pendingPlaintext: [UInt8] = []
    private var state = State.open
    private var closeError: RuntimeError?
    private var closeRequested = false

    private enum State { case open, closed }

    /// Starts a client handshake over `transport`, verifying that the
    /// server's certificate is valid for `serverName` (a host name, sent as
    /// SNI, or an IP address, checked against the certificate's IP SANs).
    public convenience init(client context: TLSContext, over transport: ByteStream, serverName: String) throws(RuntimeError) {
        try self.init(context: context, transport: transport, peerName: serverName)
        SSL_set_connect_state(ssl)
        let param = SSL_get0_param(ssl)
        if SocketAddress(ip: serverName, port: 0) != nil {
            guard X509_VERIFY_PARAM_set1_ip_asc(param, serverName) == 1 else {
                throw .tls("cannot verify IP address \(serverName)", "TLS")
            }
        } else {
            guard SSL_set1_host(ssl, serverName) == 1,
                  cshims_SSL_set_tlsext_host_name(ssl, serverName) == 1 else {
                throw .tls("invalid server name \(serverName)", "TLS")
            }
        }
        advanceHandshake()
    }

    /// Accepts a TLS handshake from a client over `transport`.
    public convenience init(server context: TLSContext, over transport: ByteStream) throws(RuntimeError) {
        try self.init(context: context, transport: transport, peerName: "client")
        SSL_set_accept_state(ssl)
    }

    private init(context: TLSContext, transport: ByteStream, peerName: String) throws(RuntimeError) {
        guard let ssl = SSL_new(context.pointer) else {
            throw .tls(TLSContext.openSSLReason(), "TLS")
        }
        guard let networkIn = BIO_new(BIO_s_mem()), let networkOut = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw .tls("out of memory", "TLS")
        }
        SSL_set_bio(ssl, networkIn, networkOut)  // ssl now owns both BIOs
        self.context = context
        self.ssl = ssl
        self.networkIn = networkIn
        self.networkOut = networkOut
        self.transport = transport
        self.peerName = peerName
        // Strong captures on purpose: the transport (held by the loop while
        // open) keeps this stream alive; it drops the closures when it closes.
        transport.onData = { bytes in self.receive(bytes) }
        transport.onClose = { error in self.transportClosed(error) }
        transport.onDrain = { if self.pendingPlaintext.isEmpty { self.onDrain?() } }
    }

    deinit {
        SSL_free(ssl)
    }

    public var bufferedAmount: Int { transport.bufferedAmount + pendingPlaintext.count }
    public var isOpen: Bool { state == .open && transport.isOpen }

    /// Pauses the transport: no ciphertext is read, so no plaintext comes.
    public var isReadingPaused: Bool {
        get { transport.isReadingPaused }
        set { transport.isReadingPaused = newValue }
    }

    public func write(_ bytes: [UInt8]) {
        guard state == .open, !bytes.isEmpty else { return }
        guard isHandshakeComplete else {
            pendingPlaintext.append(contentsOf: bytes)
            return
        }
        encrypt(bytes)
        flushOutput()
    }

    /// Sends close_notify, then closes the transport once everything is sent.
    public func close() {
        guard state == .open else { return }
        state = .closed
        closeRequested = true
        onData = nil
        onHandshakeComplete = nil
        if isHandshakeComplete {
            ERR_clear_error()
            _ = SSL_shutdown(ssl)
            flushOutput()
        }
        transport.close()
    }

    public func abort() {
        guard state == .open else { return }
        state = .closed
        closeRequested = true
        onData = nil
        onHandshakeComplete = nil
        transport.abort()
    }

    // MARK: - Engine

    private func receive(_ ciphertext: [UInt8]) {
        guard state == .open else { return }
        let written = ciphertext.withUnsafeBytes { BIO_write(networkIn, $0.baseAddress, Int32(clamping: $0.count)) }
        guard written == ciphertext.count else {
            fail(.tls("out of memory", handshakeContext))
            return
        }
        if !isHandshakeComplete {
            advanceHandshake()
            guard isHandshakeComplete, state == .open else { return }
        }
        readPlaintext()
    }

    private func advanceHandshake() {
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        flushOutput()  // ClientHello, alerts, Finished...
        if result == 1 {
            isHandshakeComplete = true
            if !pendingPlaintext.isEmpty {
                let queued = pendingPlaintext
                pendingPlaintext = []
                encrypt(queued)
                flushOutput()
            }
            let callback = onHandshakeComplete
            onHandshakeComplete = nil
            callback?()
            return
        }
        let code = SSL_get_error(ssl, result)
        if code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE { return }
        fail(handshakeError(code))
    }

    private func readPlaintext() {
        withUnsafeTemporaryAllocation(byteCount: 16 * 1024, alignment: 16) { buffer in
            while state == .open {
                ERR_clear_error()
                let count = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
                if count > 0 {
                    onData?([UInt8](UnsafeRawBufferPointer(rebasing: buffer[0..<Int(count)])))
                    continue
                }
                let code = SSL_get_error(ssl, count)
                if code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE { break }
                if code == SSL_ERROR_ZERO_RETURN {
                    // close_notify: the peer finished cleanly.
                    fail(nil)
                } else {
                    fail(.tls(TLSContext.openSSLReason(), "TLS connection with \(peerName)"))
                }
                return
            }
        }
        flushOutput()  // TLS 1.3 tickets and key updates
    }

    private func encrypt(_ plaintext: [UInt8]) {
        ERR_clear_error()
        let result = plaintext.withUnsafeBytes { raw in
            // Memory BIOs grow as needed, so one SSL_write takes it all.
            SSL_write(ssl, raw.baseAddress, Int32(clamping: raw.count))
        }
        if result <= 0 {
            fail(.tls(TLSContext.openSSLReason(), "TLS connection with \(peerName)"))
        }
    }

    private func flushOutput() {
        let pending = Int(BIO_ctrl_pending(networkOut))
        guard pending > 0 else { return }
        let bytes = [UInt8](unsafeUninitializedCapacity: pending) { buffer, initialized in
            let count = BIO_read(networkOut, buffer.baseAddress, Int32(clamping: pending))
            initialized = max(0, Int(count))
        }
        transport.write(bytes)
    }

    /// Records why we are closing and closes the transport gracefully (so
    /// an alert already queued still reaches the peer); the one `onClose`
    /// comes from the transport's.
    private func fail(_ error: RuntimeError?) {
        guard state == .open else { return }
        state = .closed
        closeError = error
        onData = nil
        onHandshakeComplete = nil
        transport.close()
    }

    private func transportClosed(_ error: RuntimeError?) {
        state = .closed
        let callback = onClose
        onData = nil
        onClose = nil
        onDrain = nil
        onHandshakeComplete = nil
        var reported = closeError ?? error
        if reported == nil && !isHandshakeComplete && !closeRequested {
            reported = .tls("connection closed during the handshake", handshakeContext)
        }
        callback?(reported)
    }

    private var handshakeContext: String { "TLS handshake with \(peerName)" }

    /// A sentence for a failed handshake: the certificate problem when
    /// verification failed, else OpenSSL's reason ("tlsv1 alert unknown ca").
    private func handshakeError(_ code: Int32) -> RuntimeError {
        let verify = SSL_get_verify_result(ssl)
        if verify != X509_V_OK {
            ERR_clear_error()
            let text = X509_verify_cert_error_string(verify).map { String(cString: $0) } ?? "error \(verify)"
            return .tls("certificate verify failed: \(text)", handshakeContext)
        }
        if code == SSL_ERROR_SYSCALL || code == SSL_ERROR_ZERO_RETURN {
            ERR_clear_error()
            return .tls("connection closed during the handshake", handshakeContext)
        }
        return .tls(TLSContext.openSSLReason(), handshakeContext)
    }
}

import COpenSSL
import CShims
import Wire

/// One end of a DTLS 1.2 association (RFC 6347) as WebRTC uses it (RFC 8827):
/// a sans-IO wrapper around an OpenSSL `SSL*` that never touches a socket.
///
/// Feed every received DTLS datagram to ``handleInput(datagram:now:)``, send
/// what ``pollTransmit()`` returns (one UDP datagram each, never larger than the
/// MTU), read results with ``pollEvent()``, and call ``handleTimeout(now:)`` once
/// the time ``pollTimeout()`` returns has come. A client starts its handshake
/// at once, so its ClientHello is ready to transmit after `init`.
///
/// The peer must present a certificate whose hash equals `remoteFingerprint`
/// (from its SDP); otherwise the handshake fails with
/// ``DTLSError/fingerprintMismatch`` and no data is ever delivered.
///
/// Time is the caller's `now`: the retransmission schedule lives here
/// (``RetransmissionSchedule``) and nothing reads the wall clock. OpenSSL's
/// own timer compares against `gettimeofday`, so it is set an hour long (it
/// never fires by itself) and made to read as expired only when the schedule
/// says a flight is due, right before `DTLSv1_handle_timeout` (see
/// ``controlsOpenSSLTimer``).
public final class DTLSEndpoint {
    public enum Role: Sendable { case client, server }

    /// Offered cipher suites: the AEAD suites browsers negotiate first, then the
    /// CBC ones older stacks fall back to. ECDHE only (forward secrecy); RSA
    /// suites matter only when we are the client and the peer's cert is RSA.
    public static let cipherList = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-ECDSA-CHACHA20-POLY1305",
        "ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-RSA-CHACHA20-POLY1305",
        "ECDHE-ECDSA-AES128-SHA", "ECDHE-ECDSA-AES256-SHA", "ECDHE-RSA-AES128-SHA", "ECDHE-RSA-AES256-SHA",
    ].joined(separator: ":")

    /// Worst-case record expansion of the offered suites (13-byte header,
    /// 16-byte IV, 48-byte HMAC-SHA384 or 20-byte SHA-1 MAC plus up to 16 bytes
    /// of padding): used as the plaintext limit before a suite is negotiated.
    static let worstCaseRecordOverhead = 13 + 16 + 20 + 16

    public enum State: Sendable, Equatable { case handshaking, connected, closed, failed }

    public let role: Role
    /// Largest UDP payload this endpoint emits.
    public let mtu: Int
    public private(set) var state: State = .handshaking
    /// ``recordPolicy()`` once connected.
    private var connectedPolicy: RecordFraming.Policy?

    private let context: OpaquePointer
    private let ssl: OpaquePointer
    private let bioMethod: OpaquePointer
    private let queue = DatagramQueue()
    private let verifier: PeerVerifier
    private var events = Deque<DTLSEvent>()
    private var schedule = RetransmissionSchedule()
    /// One record's plaintext at most (2^14) plus slack; reused for every SSL_read.
    private let readBuffer: UnsafeMutableRawBufferPointer

    /// OpenSSL 3.0 and 3.1 hand the BIO a pointer to their own deadline
    /// (BIO_CTRL_DGRAM_SET_NEXT_TIMEOUT), which is how a retransmission is
    /// made due on our clock. Later versions pass a copy; there OpenSSL's
    /// timer runs on the wall clock with the same schedule (150 ms doubling
    /// to 4 s), which agrees with ours whenever `now` is real time.
    static let controlsOpenSSLTimer = OpenSSL_version_num() < 0x3020_0000

    /// OpenSSL's timer callback: an hour (never, in practice) when ours
    /// decides, else the schedule in microseconds.
    private static let openSSLTimer: DTLS_timer_cb = { _, previousMicroseconds in
        if controlsOpenSSLTimer { return 3_600_000_000 }
        return previousMicroseconds == 0 ? 150_000 : min(previousMicroseconds &* 2, 4_000_000)
    }

    public init(role: Role, certificate: DTLSCertificate, remoteFingerprint: Fingerprint, mtu: Int = 1200,
                now: Duration) throws(DTLSError) {
        guard Fingerprint.digest(for: remoteFingerprint.algorithm) != nil else {
            throw .unsupportedFingerprintAlgorithm(remoteFingerprint.algorithm)
        }
        guard mtu >= 256, mtu <= 65_507 else { throw .setupFailed("MTU \(mtu) is outside 256…65507") }
        self.role = role
        self.mtu = mtu
        self.verifier = PeerVerifier(expected: remoteFingerprint)
        OpenSSLErrors.clear()
        guard let context = SSL_CTX_new(DTLS_method()) else { throw .setupFailed(OpenSSLErrors.drain()) }
        guard let method = DatagramBIO.makeMethod() else {
            SSL_CTX_free(context)
            throw .setupFailed(OpenSSLErrors.drain())
        }
        var ok = cshims_SSL_CTX_set_min_proto_version(context, DTLS1_2_VERSION) == 1
        ok = ok && cshims_SSL_CTX_set_max_proto_version(context, DTLS1_2_VERSION) == 1
        _ = SSL_CTX_set_options(context, cshims_dtls_options())
        _ = cshims_SSL_CTX_set_session_cache_mode(context, cshims_SSL_SESS_CACHE_OFF())
        ok = ok && SSL_CTX_set_cipher_list(context, DTLSEndpoint.cipherList) == 1
        ok = ok && cshims_SSL_CTX_set1_groups_list(context, "X25519:P-256:P-384") == 1
        // No SRTP is ever used, but WebRTC stacks built for media (aiortc among
        // them) fail a handshake that negotiates no SRTP profile; browsers offer it too.
        ok = ok && SSL_CTX_set_tlsext_use_srtp(context, "SRTP_AEAD_AES_128_GCM:SRTP_AES128_CM_SHA1_80") == 0
        ok = ok && SSL_CTX_use_certificate(context, certificate.x509) == 1
        ok = ok && SSL_CTX_use_PrivateKey(context, certificate.privateKey) == 1
        ok = ok && SSL_CTX_check_private_key(context) == 1
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
        SSL_CTX_set_cert_verify_callback(context, PeerVerifier.callback, Unmanaged.passUnretained(verifier).toOpaque())
        guard ok, let ssl = SSL_new(context), let bio = BIO_new(method) else {
            let detail = OpenSSLErrors.drain()
            SSL_CTX_free(context)
            BIO_meth_free(method)
            throw .setupFailed(detail)
        }
        BIO_set_data(bio, Unmanaged.passUnretained(queue).toOpaque())
        SSL_set_bio(ssl, bio, bio)  // one reference, owned by ssl from here on
        // The MTU is ours to decide (no PMTU discovery through a custom BIO).
        ok = cshims_SSL_set_mtu(ssl, mtu) > 0 && cshims_DTLS_set_link_mtu(ssl, mtu) == 1
        DTLS_set_timer_cb(ssl, DTLSEndpoint.openSSLTimer)
        self.context = context
        self.ssl = ssl
        self.bioMethod = method
        self.readBuffer = .allocate(byteCount: 16_384 + 2_048, alignment: 16)
        guard ok else { throw .setupFailed("OpenSSL refused MTU \(mtu): \(OpenSSLErrors.drain())") }
        switch role {
        case .client: SSL_set_connect_state(ssl)
        case .server: SSL_set_accept_state(ssl)
        }
        if role == .client { advance(now: now) }
    }

    deinit {
        SSL_free(ssl)  // frees the BIO, which points at `queue`, before `queue` goes
        SSL_CTX_free(context)
        BIO_meth_free(bioMethod)
        readBuffer.deallocate()
    }

    // MARK: - Input

    /// One received UDP datagram (it may carry several records; OpenSSL splits
    /// them). Datagrams with broken record framing and records that fail
    /// authentication are dropped silently, as RFC 6347 §4.1.2.7 asks.
    public func handleInput(datagram: [UInt8], now: Duration) {
        guard state == .handshaking || state == .connected,
              let usable = RecordFraming.filter(datagram, policy: recordPolicy()) else { return }
        queue.pushInbound(usable)
        advance(now: now)
        queue.dropInbound()  // whatever OpenSSL did not consume now never will be
    }

    /// Sends the current flight again when the schedule says it is due, and
    /// gives the handshake up when retransmissions have run out.
    public func handleTimeout(now: Duration) {
        guard state == .handshaking, let due = schedule.deadline, now >= due else { return }
        guard !schedule.isExhausted else { return fail(.handshakeTimedOut) }
        queue.expireOpenSSLTimer()
        OpenSSLErrors.clear()
        let result = cshims_DTLSv1_handle_timeout(ssl)
        _ = OpenSSLErrors.drain()
        if result < 0 { return fail(.handshakeTimedOut) }
        schedule.retransmitted(now: now)
        advance(now: now)
    }

    // MARK: - Output

    /// The next datagram to send, at most `mtu` bytes.
    public func pollTransmit() -> [UInt8]? { queue.popOutbound() }

    public func pollEvent() -> DTLSEvent? { events.popFirst() }

    /// When ``handleTimeout(now:)`` has work (the next retransmission); nil
    /// when nothing is outstanding (after the handshake, or once closed or failed).
    public func pollTimeout() -> Duration? {
        state == .handshaking ? schedule.deadline : nil
    }

    /// Largest plaintext `send` accepts: what fits one record in one datagram of
    /// `mtu` bytes with the negotiated suite (1163 for AES-GCM at MTU 1200).
    /// Once connected: records may carry up to 2^14 bytes, whatever `mtu`
    /// the handshake kept to, so that SCTP's Path MTU Discovery (RFC 8899)
    /// can use what the path carries. Each record is still one datagram,
    /// and a datagram the path cannot carry is lost like any other, which
    /// is how the discovery learns the limit.
    public func allowLargeRecords() {
        guard state == .connected else { return }
        let largest = 16_384 + 256
        _ = cshims_SSL_set_mtu(ssl, largest)
        _ = cshims_DTLS_set_link_mtu(ssl, largest)
    }

    public var maxPlaintextSize: Int {
        if state == .connected {
            let fromOpenSSL = DTLS_get_data_mtu(ssl)
            if fromOpenSSL > 0 { return min(Int(fromOpenSSL), 16_384) }
        }
        return mtu - DTLSEndpoint.worstCaseRecordOverhead
    }

    /// The negotiated suite's OpenSSL name, once connected.
    public var cipherSuite: String? {
        guard state == .connected, let cipher = SSL_get_current_cipher(ssl), let name = SSL_CIPHER_get_name(cipher) else { return nil }
        return String(cString: name)
    }

    // MARK: - Application data

    /// Encrypts `plaintext` as one application-data record in one datagram.
    public func send(_ plaintext: [UInt8]) throws(DTLSError) {
        // withUnsafeBytes only rethrows `any Error`, so carry the typed error out.
        let result: Result<Void, DTLSError> = plaintext.withUnsafeBytes { buffer in
            do throws(DTLSError) { try send(buffer); return .success(()) } catch { return .failure(error) }
        }
        try result.get()
    }

    /// The same from a caller's buffer (e.g. an SCTP packet built in place), no copy.
    public func send(_ plaintext: UnsafeRawBufferPointer) throws(DTLSError) {
        guard state == .connected else { throw .notConnected }
        let limit = maxPlaintextSize
        guard plaintext.count <= limit else { throw .messageTooLarge(size: plaintext.count, limit: limit) }
        guard let base = plaintext.baseAddress, !plaintext.isEmpty else { return }
        OpenSSLErrors.clear()
        let written = SSL_write(ssl, base, Int32(plaintext.count))
        if written <= 0 {
            let error = DTLSError.connectionFailed(OpenSSLErrors.drain())
            fail(error)
            throw error
        }
    }

    /// Sends close_notify; no events follow.
    public func close() {
        guard state == .connected || state == .handshaking else { return }
        OpenSSLErrors.clear()
        if state == .connected { _ = SSL_shutdown(ssl) }
        _ = OpenSSLErrors.drain()
        state = .closed
    }

    // MARK: - Driving OpenSSL

    private func advance(now: Duration) {
        let starts = queue.timerStarts
        if state == .handshaking { continueHandshake() }
        if state == .connected { readRecords() }
        // OpenSSL (re)starts its timer for every flight it sends and stops it
        // once the peer's next flight is in.
        if state != .handshaking || !queue.timerRunning {
            schedule.stop()
        } else if queue.timerStarts != starts || schedule.deadline == nil {
            schedule.flightSent(now: now)
        }
    }

    /// Which records can be genuine now (see ``RecordFraming``). Worked out
    /// from the cipher's name once connected, then kept: the cipher cannot
    /// change (no renegotiation), and this runs for every datagram.
    private func recordPolicy() -> RecordFraming.Policy {
        if state == .connected, let connectedPolicy { return connectedPolicy }
        let cipher = state == .connected ? SSL_get_current_cipher(ssl) : SSL_get_pending_cipher(ssl)
        let epochs = state == .connected ? 1...1 : 0...1
        guard let cipher, let cName = SSL_CIPHER_get_name(cipher) else {
            return RecordFraming.Policy(epochs: epochs, minimumEncryptedLength: 16)
        }
        let name = String(cString: cName)
        // AES-GCM: 8-byte explicit nonce + 16-byte tag; ChaCha20-Poly1305: the
        // tag alone; CBC: the IV plus at least one block.
        let minimum = name.contains("GCM") ? 24 : name.contains("CHACHA20") ? 16 : 32
        let policy = RecordFraming.Policy(epochs: epochs, minimumEncryptedLength: minimum)
        if state == .connected { connectedPolicy = policy }
        return policy
    }

    private func continueHandshake() {
        OpenSSLErrors.clear()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            _ = OpenSSLErrors.drain()
            // Belt and braces: the verify callback already checked the certificate.
            guard let peer = SSL_get1_peer_certificate(ssl) else { return fail(.fingerprintMismatch) }
            defer { X509_free(peer) }
            guard let presented = Fingerprint.of(certificate: peer, algorithm: verifier.expected.algorithm),
                  presented.matches(verifier.expected),
                  let sha256 = Fingerprint.of(certificate: peer, algorithm: "sha-256")
            else { return fail(.fingerprintMismatch) }
            state = .connected
            events.append(.connected(peerFingerprint: sha256))
            return
        }
        let code = SSL_get_error(ssl, result)
        if code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE {
            _ = OpenSSLErrors.drain()
            return
        }
        let detail = OpenSSLErrors.drain()
        fail(verifier.mismatch ? .fingerprintMismatch : .handshakeFailed(detail))
    }

    private func readRecords() {
        while state == .connected {
            OpenSSLErrors.clear()
            let n = SSL_read(ssl, readBuffer.baseAddress, Int32(readBuffer.count))
            if n > 0 {
                events.append(.data(Array(UnsafeRawBufferPointer(rebasing: readBuffer[0..<Int(n)]))))
                continue
            }
            let code = SSL_get_error(ssl, n)
            let detail = OpenSSLErrors.drain()
            switch code {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                return
            case SSL_ERROR_ZERO_RETURN:
                // Answer with our own close_notify (RFC 5246 §7.2.1), then stop.
                OpenSSLErrors.clear()
                _ = SSL_shutdown(ssl)
                _ = OpenSSLErrors.drain()
                state = .closed
                events.append(.closed)
            default:
                fail(.connectionFailed(detail))
            }
        }
    }

    private func fail(_ error: DTLSError) {
        guard state == .handshaking || state == .connected else { return }
        state = .failed
        events.append(.failed(error))
    }
}

import COpenSSL

/// Checks the peer's certificate against the fingerprint from its SDP, inside
/// OpenSSL's certificate-verification step: a mismatch aborts the handshake
/// (bad_certificate alert) before either side can reach Finished, so no
/// application data is ever exchanged with an impostor.
final class PeerVerifier {
    let expected: Fingerprint
    /// Set when a certificate was presented and did not match.
    private(set) var mismatch = false
    /// SHA-256 of the accepted peer certificate.
    private(set) var peerFingerprint: Fingerprint?

    init(expected: Fingerprint) { self.expected = expected }

    func verify(certificate: OpaquePointer) -> Bool {
        guard let presented = Fingerprint.of(certificate: certificate, algorithm: expected.algorithm),
              presented.matches(expected),
              let sha256 = Fingerprint.of(certificate: certificate, algorithm: "sha-256")
        else {
            mismatch = true
            return false
        }
        peerFingerprint = sha256
        return true
    }

    /// `SSL_CTX_set_cert_verify_callback` replaces chain building entirely: a
    /// self-signed certificate is fine, only the fingerprint decides.
    static let callback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { store, arg in
        guard let store, let arg, let leaf = X509_STORE_CTX_get0_cert(store) else { return 0 }
        let verifier = Unmanaged<PeerVerifier>.fromOpaque(arg).takeUnretainedValue()
        if verifier.verify(certificate: leaf) { return 1 }
        X509_STORE_CTX_set_error(store, X509_V_ERR_CERT_REJECTED)
        return 0
    }
}

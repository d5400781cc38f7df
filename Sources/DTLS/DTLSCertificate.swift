import COpenSSL

/// A fresh ECDSA P-256 key and self-signed certificate, one per session
/// (RFC 8827 §6.5: WebRTC endpoints authenticate by fingerprint, not by a CA).
///
/// The certificate's identity is its SHA-256 ``fingerprint``, which goes into the
/// SDP; the subject name is only cosmetic.
public final class DTLSCertificate: @unchecked Sendable {
    // @unchecked Sendable: the key and certificate are never mutated after init,
    // and OpenSSL's reference counts on X509/EVP_PKEY are atomic, so sharing
    // them between threads (e.g. SSL_CTX_use_certificate) is safe.
    let x509: OpaquePointer
    let privateKey: OpaquePointer
    /// SHA-256 over the DER certificate, as `a=fingerprint:sha-256 …` announces it.
    public let fingerprint: Fingerprint

    /// Generates a key pair and a certificate valid from a day ago (clock skew)
    /// for `validityDays`, with a random 63-bit serial.
    public init(commonName: String = "chatcli", validityDays: Int = 30) throws(DTLSError) {
        OpenSSLErrors.clear()
        guard let key = DTLSCertificate.generateP256Key() else {
            throw .certificateGenerationFailed("P-256 key generation: \(OpenSSLErrors.drain())")
        }
        guard let cert = X509_new() else {
            EVP_PKEY_free(key)
            throw .certificateGenerationFailed("X509_new: \(OpenSSLErrors.drain())")
        }
        var ok = X509_set_version(cert, 2) == 1  // v3
        var serial: UInt64 = 0
        ok = ok && withUnsafeMutableBytes(of: &serial) { RAND_bytes($0.baseAddress?.assumingMemoryBound(to: UInt8.self), 8) } == 1
        serial &= 0x7FFF_FFFF_FFFF_FFFF
        if serial == 0 { serial = 1 }  // RFC 5280 §4.1.2.2: positive
        ok = ok && ASN1_INTEGER_set_uint64(X509_get_serialNumber(cert), serial) == 1
        ok = ok && X509_gmtime_adj(X509_getm_notBefore(cert), -86_400) != nil
        ok = ok && X509_gmtime_adj(X509_getm_notAfter(cert), validityDays * 86_400) != nil
        if ok, let name = X509_get_subject_name(cert) {
            ok = X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0) == 1
            ok = ok && X509_set_issuer_name(cert, name) == 1
        } else {
            ok = false
        }
        ok = ok && X509_set_pubkey(cert, key) == 1
        ok = ok && X509_sign(cert, key, EVP_sha256()) > 0
        guard ok, let fp = Fingerprint.of(certificate: cert, algorithm: "sha-256") else {
            X509_free(cert)
            EVP_PKEY_free(key)
            throw .certificateGenerationFailed("building the certificate: \(OpenSSLErrors.drain())")
        }
        x509 = cert
        privateKey = key
        fingerprint = fp
    }

    /// A saved certificate again (`derBytes` and `privateKeyDER` of an
    /// earlier one), so a resumed session shows its peer the same fingerprint.
    /// Bytes that are not a certificate, a key, or a matching pair are refused.
    public init(der: [UInt8], privateKeyDER: [UInt8]) throws(DTLSError) {
        OpenSSLErrors.clear()
        let cert: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let cert else { throw .certificateImportFailed("not a DER certificate: \(OpenSSLErrors.drain())") }
        let key: OpaquePointer? = privateKeyDER.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_AutoPrivateKey(nil, &cursor, buffer.count)
        }
        guard let key else {
            X509_free(cert)
            throw .certificateImportFailed("not a DER private key: \(OpenSSLErrors.drain())")
        }
        guard X509_check_private_key(cert, key) == 1, let fp = Fingerprint.of(certificate: cert, algorithm: "sha-256") else {
            X509_free(cert)
            EVP_PKEY_free(key)
            throw .certificateImportFailed("the private key does not belong to the certificate")
        }
        x509 = cert
        privateKey = key
        fingerprint = fp
    }

    deinit {
        X509_free(x509)
        EVP_PKEY_free(privateKey)  // frees (and OpenSSL cleanses) the EC private scalar
    }

    /// The certificate in DER form (what the fingerprint is computed over).
    public var derBytes: [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let n = i2d_X509(x509, &out)
        guard n > 0, let out else { return [] }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(n)))
    }

    /// The private key in DER form (for `init(der:privateKeyDER:)`); a
    /// secret: keep it only where the session store seals it.
    public var privateKeyDER: [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let n = i2d_PrivateKey(privateKey, &out)
        guard n > 0, let out else { return [] }
        defer { CRYPTO_clear_free(out, Int(n), #fileID, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(n)))
    }

    private static func generateP256Key() -> OpaquePointer? {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { return nil }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_group_name(ctx, "P-256") == 1 else { return nil }
        var key: OpaquePointer? = nil
        guard EVP_PKEY_keygen(ctx, &key) == 1 else { return nil }
        return key
    }
}

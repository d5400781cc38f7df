import DTLS
import Testing
import TestSupport

/// A saved session's certificate read back: the same fingerprint, a DTLS
/// handshake with it, and garbage or mismatched pairs refused in one sentence.
@Suite(.computeThread) struct SavedCertificateTests {
    @Test func aSavedCertificateReadsBackWithTheSameFingerprint() throws {
        let cert = try DTLSCertificate()
        let again = try DTLSCertificate(der: cert.derBytes, privateKeyDER: cert.privateKeyDER)
        #expect(again.fingerprint == cert.fingerprint)
        #expect(again.derBytes == cert.derBytes)
        #expect(again.privateKeyDER == cert.privateKeyDER)
        #expect(!cert.privateKeyDER.isEmpty)
    }

    @Test func aKeyOfAnotherCertificateIsRefused() throws {
        let a = try DTLSCertificate(), b = try DTLSCertificate()
        #expect(throws: DTLSError.certificateImportFailed("the private key does not belong to the certificate")) {
            _ = try DTLSCertificate(der: a.derBytes, privateKeyDER: b.privateKeyDER)
        }
    }

    @Test func truncatedAndRandomBytesAreRefusedCleanly() throws {
        let cert = try DTLSCertificate()
        let der = cert.derBytes, key = cert.privateKeyDER
        var rng = SystemRandomNumberGenerator()
        for cut in stride(from: 0, to: der.count, by: 7) {
            #expect(throws: DTLSError.self) { _ = try DTLSCertificate(der: Array(der.prefix(cut)), privateKeyDER: key) }
        }
        for cut in stride(from: 0, to: key.count, by: 5) {
            #expect(throws: DTLSError.self) { _ = try DTLSCertificate(der: der, privateKeyDER: Array(key.prefix(cut))) }
        }
        for _ in 0..<200 {
            let junk = (0..<Int.random(in: 0...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            #expect(throws: DTLSError.self) { _ = try DTLSCertificate(der: junk, privateKeyDER: key) }
            #expect(throws: DTLSError.self) { _ = try DTLSCertificate(der: der, privateKeyDER: junk) }
        }
    }
}

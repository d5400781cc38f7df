import PAKE
import TestSupport
import Testing
import Wire

/// The exchange between two in-memory sides: success, and every way it
/// must fail cleanly (another code, another binding, tampered, replayed,
/// truncated, reordered, reflected messages).
@Suite(.computeThread) struct PAKEHandshakeTests {
    static let code = Array("123456-brave-otter".utf8)
    static let binding = PAKEBinding(roomID: "room-1", offererFingerprint: Array(repeating: 0xAA, count: 32),
                                     answererFingerprint: Array(repeating: 0xBB, count: 32))

    static func pair(seed: UInt64 = 1, initiatorCode: [UInt8] = code, responderCode: [UInt8] = code,
                     initiatorBinding: PAKEBinding = binding, responderBinding: PAKEBinding = binding) -> (PAKEHandshake, PAKEHandshake) {
        var rng = SeededRandom(seed: seed)
        let a = PAKEHandshake(role: .initiator, prs: initiatorCode, binding: initiatorBinding, random: &rng)
        let b = PAKEHandshake(role: .responder, prs: responderCode, binding: responderBinding, random: &rng)
        return (a, b)
    }

    /// Runs the exchange through the codec; the messages as sent.
    @discardableResult
    static func run(_ a: PAKEHandshake, _ b: PAKEHandshake) -> [PAKEMessage] {
        var sent: [PAKEMessage] = []
        guard let m1 = a.start() else { return sent }
        sent.append(m1)
        guard let m2 = b.receive(PAKEMessage(text: m1.text)!) else { return sent }
        sent.append(m2)
        guard let m3 = a.receive(PAKEMessage(text: m2.text)!) else { return sent }
        sent.append(m3)
        if let m4 = b.receive(PAKEMessage(text: m3.text)!) { sent.append(m4) }
        return sent
    }

    @Test func sameCodeAndBindingVerifiesBothSides() {
        let (a, b) = Self.pair()
        let sent = Self.run(a, b)
        #expect(sent.count == 3)
        #expect(a.outcome == .verified)
        #expect(b.outcome == .verified)
    }

    @Test func anotherSecretFailsBothSides() {
        let (a, b) = Self.pair(responderCode: Array("123456-brave-zesty".utf8))
        let sent = Self.run(a, b)
        #expect(a.outcome == .failed(.mismatch))
        #expect(sent.last == .failed)
        #expect(b.receive(.failed) == nil)
        #expect(b.outcome == .failed(.peerFailed))
    }

    @Test func swappedFingerprintsFailLikeAnotherCode() {
        // What each side sees when a server in the middle terminates DTLS.
        var seen = Self.binding
        seen.answererFingerprint = Array(repeating: 0xCC, count: 32)
        let (a, b) = Self.pair(responderBinding: seen)
        Self.run(a, b)
        #expect(a.outcome == .failed(.mismatch))
        var other = Self.binding
        other.roomID = "room-2"
        let (c, d) = Self.pair(initiatorBinding: other)
        Self.run(c, d)
        #expect(c.outcome == .failed(.mismatch))
    }

    @Test func tamperedTagsFail() {
        let (a, b) = Self.pair()
        guard case .share(let ya)? = a.start(), case .shareAndConfirm(let yb, var tb)? = b.receive(.share(y: ya)) else {
            Issue.record("no share"); return
        }
        tb[7] ^= 1
        #expect(a.receive(.shareAndConfirm(y: yb, tag: tb)) == .failed)
        #expect(a.outcome == .failed(.mismatch))

        let (c, d) = Self.pair(seed: 2)
        guard let m1 = c.start(), let m2 = d.receive(m1), case .confirm(var ta)? = c.receive(m2) else { Issue.record("no confirm"); return }
        ta[0] ^= 0x80
        #expect(d.receive(.confirm(tag: ta)) == .failed)
        #expect(d.outcome == .failed(.mismatch))
    }

    @Test func tamperedShareFails() {
        let (a, b) = Self.pair()
        guard case .share(var ya)? = a.start() else { return }
        ya[3] ^= 4   // no longer a valid encoding, or another element
        let reply = b.receive(.share(y: ya))
        if reply == .failed {
            #expect(b.outcome == .failed(.protocolViolation))
        } else if let reply {
            #expect(a.receive(reply) == .failed)
            #expect(a.outcome == .failed(.mismatch))
        }
    }

    @Test func invalidElementsFail() {
        let (_, b) = Self.pair()
        #expect(b.receive(.share(y: Array(repeating: 0, count: 32))) == .failed)
        #expect(b.outcome == .failed(.protocolViolation))
    }

    @Test func reorderedAndReplayedMessagesFail() {
        // A confirm before the share.
        let (_, b) = Self.pair()
        #expect(b.receive(.confirm(tag: Array(repeating: 1, count: 64))) == .failed)
        #expect(b.outcome == .failed(.protocolViolation))
        // The initiator gets a bare share (its own role's message).
        let (a2, _) = Self.pair(seed: 3)
        guard let m1 = a2.start() else { return }
        #expect(a2.receive(.share(y: Array(repeating: 9, count: 32))) == .failed)
        // A reflected share: the initiator's own Ya sent back.
        let (a3, b3) = Self.pair(seed: 4)
        guard case .share(let ya)? = a3.start() else { return }
        _ = b3
        #expect(a3.receive(.shareAndConfirm(y: ya, tag: Array(repeating: 0, count: 64))) == .failed)
        // Replays after success change nothing.
        let (a4, b4) = Self.pair(seed: 5)
        let sent = Self.run(a4, b4)
        #expect(b4.receive(sent[2]) == nil)
        #expect(a4.receive(sent[1]) == nil)
        #expect(a4.outcome == .verified && b4.outcome == .verified)
        // A second share from a new initiator after the responder answered.
        let (a5, b5) = Self.pair(seed: 6)
        guard let first = a5.start() else { return }
        _ = b5.receive(first)
        #expect(b5.receive(m1) == .failed)
        #expect(b5.outcome == .failed(.protocolViolation))
    }

    @Test func truncatedAndMalformedMessagesAreRejectedByTheCodec() {
        let (a, b) = Self.pair()
        let texts = Self.run(a, b).map(\.text)
        for text in texts {
            for cut in 0..<text.utf8.count {
                let truncated = String(decoding: text.utf8.prefix(cut), as: UTF8.self)
                #expect(PAKEMessage(text: truncated) == nil)
            }
        }
        #expect(PAKEMessage(text: #"{"type":"pake","step":"share","y":"00"}"#) == nil)
        #expect(PAKEMessage(text: #"{"type":"pake","step":"confirm"}"#) == nil)
        #expect(PAKEMessage(text: #"{"type":"pake","step":"nope"}"#) == nil)
        #expect(PAKEMessage(text: #"{"type":"name","step":"failed"}"#) == nil)
        #expect(PAKEMessage(text: #"{"type":"pake","step":"unproven"}"#) == .unproven)
        // The handshake fails on a malformed PAKE message.
        let (_, d) = Self.pair(seed: 9)
        #expect(d.receiveMalformed() == .failed)
        #expect(d.outcome == .failed(.protocolViolation))
    }

    @Test func fuzzedInputNeverCrashesTheCodec() {
        var rng = SeededRandom(seed: 15)
        let (a, b) = Self.pair()
        let valid = Self.run(a, b).map { Array($0.text.utf8) }
        for i in 0..<4000 {
            var bytes: [UInt8]
            if i % 2 == 0 {
                bytes = (0..<Int.random(in: 0..<200, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            } else {
                bytes = valid[i % valid.count]
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0x20...0x7E, using: &rng)
                }
            }
            if let message = PAKEMessage(text: String(decoding: bytes, as: UTF8.self)) {
                let (_, d) = Self.pair(seed: UInt64(i))
                _ = d.receive(message)   // settles or replies; never traps
            }
        }
    }

    @Test func peerWithoutPAKEIsUnprovenNotVerified() {
        let (a, b) = Self.pair()
        _ = a.start()
        #expect(a.receive(.unproven) == nil)
        #expect(a.outcome == .unproven)
        #expect(b.peerSkipped() == .unproven)
        #expect(b.outcome == .unproven)
    }

    @Test func secretsRoundTripAndRejectUnknownWords() {
        var rng = SeededRandom(seed: 3)
        for _ in 0..<100 {
            let secret = CodeSecret.random(using: &rng)
            #expect(CodeSecret(text: secret.description) == secret)
            #expect(CodeSecret(text: secret.description.uppercased()) == secret)
        }
        #expect(CodeSecret.words.count == 256 && Set(CodeSecret.words).count == 256)
        #expect(CodeSecret(text: "brave otter") == nil)   // "otter" is a safety word, not a code word
        #expect(CodeSecret.index(of: "otter") == nil && CodeSecret.closestWord(to: "bravo") == "brave")
        #expect(CodeSecret(text: "brave") == nil)
        #expect(CodeSecret(text: "brave-bold-calm") == nil)
    }
}

import TestSupport
import Testing
@testable import STUN

/// Hostile input must never crash the decoder, the checks or the responder.
struct FuzzTests {
    let responder = STUNResponder(software: "fuzz", otherAddress: .port(3479))
    let source = STUNAddress(ipv4: 10, 0, 0, 1, port: 1000)
    let local = STUNAddress(ipv4: 10, 0, 0, 2, port: 3478)
    let key = STUNKey.shortTerm(password: "pw")

    private func exercise(_ bytes: [UInt8]) {
        if let message = try? STUNMessage.decode(bytes) {
            _ = message.unknownComprehensionRequiredAttributes
            _ = message.encoded(integrity: key, fingerprint: true)
        }
        _ = STUNMessage.verifyIntegrity(of: bytes, key: key)
        _ = STUNMessage.verifyFingerprint(of: bytes)
        _ = responder.reply(to: bytes, from: source, receivedOn: local)
        var client = STUNClient()
        _ = client.handleInput(bytes, from: source, now: .zero)
    }

    @Test func randomBytesNeverCrash() {
        var rng = SeededRandom(seed: 0x5EED)
        for _ in 0..<5000 {
            let count = Int.random(in: 0...96, using: &rng)
            exercise((0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) })
        }
    }

    @Test func randomAttributesBehindAValidHeaderNeverCrash() {
        var rng = SeededRandom(seed: 0xA77)
        for _ in 0..<5000 {
            var body: [UInt8] = []
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                // Mostly known types, so the typed decoders see garbage.
                let known = Array(STUNAttributeType.understood)
                let type = Bool.random(using: &rng)
                    ? known[Int.random(in: 0..<known.count, using: &rng)].rawValue
                    : UInt16.random(in: 0...0xFFFF, using: &rng)
                let length = Int.random(in: 0...24, using: &rng)
                body += [UInt8(type >> 8), UInt8(type & 0xFF), 0, UInt8(length)]
                body += (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
                body += [UInt8](repeating: 0, count: Bool.random(using: &rng) ? (4 - length % 4) % 4 : 0)
            }
            body += [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)
            let header: [UInt8] = [0x00, 0x01, UInt8(body.count >> 8), UInt8(body.count & 0xFF),
                                   0x21, 0x12, 0xA4, 0x42] + (0..<12).map { _ in UInt8.random(in: 0...255, using: &rng) }
            exercise(header + body)
        }
    }

    @Test func truncatedAndMutatedVectorsNeverCrash() {
        var rng = SeededRandom(seed: 0xBEEF)
        let seeds = [RFC5769.request, RFC5769.ipv4Response, RFC5769.ipv6Response,
                     RFC5769.longTermRequest, RFC5769.sha256Request]
        for seed in seeds {
            for cut in 0...seed.count { exercise(Array(seed.prefix(cut))) }
        }
        for _ in 0..<5000 {
            var bytes = seeds[Int.random(in: 0..<seeds.count, using: &rng)]
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let index = Int.random(in: 0..<bytes.count, using: &rng)
                bytes[index] = UInt8.random(in: 0...255, using: &rng)
            }
            exercise(bytes)
        }
    }

    @Test func hugeAttributesStayWithinTheLengthField() throws {
        let id = STUNTransactionID(high: 1, low: 1)
        let big = STUNMessage(type: .bindingRequest, transactionID: id, attributes: [
            .data([UInt8](repeating: 1, count: 40_000)), .data([UInt8](repeating: 2, count: 40_000)), .software("kept"),
        ])
        let bytes = big.encoded(integrity: key, fingerprint: true)
        #expect(bytes.count - 20 <= 0xFFFF)
        let decoded = try STUNMessage.decode(bytes)
        #expect(decoded.software == "kept")
        #expect(decoded.attributes.count == 4)
        #expect(STUNMessage.verifyIntegrity(of: bytes, key: key) == .valid)
        #expect(STUNMessage.verifyFingerprint(of: bytes) == .valid)
    }
}

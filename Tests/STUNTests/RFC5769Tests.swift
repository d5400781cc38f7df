import Testing
@testable import STUN

/// RFC 5769 test vectors: decode, verify, and re-encode byte for byte
/// (the vectors pad with spaces, which `paddingByte` reproduces).
struct RFC5769Tests {
    let shortTermKey = STUNKey.shortTerm(password: RFC5769.password)

    @Test func sampleRequestDecodesToItsAttributes() throws {
        let message = try STUNMessage.decode(RFC5769.request)
        #expect(message.type == .bindingRequest)
        #expect(message.transactionID.bytes == RFC5769.transactionID)
        #expect(message.software == "STUN test client")
        #expect(message.priority == 0x6e00_01ff)
        #expect(message.attribute(.iceControlled) == .iceControlled(tieBreaker: 0x932f_f9b1_5126_3b36))
        #expect(message.username == "evtj:h6vY")
        #expect(message.attributes.count == 6)
        #expect(message.unknownComprehensionRequiredAttributes.isEmpty)
    }

    @Test func sampleRequestIntegrityAndFingerprintVerify() {
        #expect(STUNMessage.verifyIntegrity(of: RFC5769.request, key: shortTermKey) == .valid)
        #expect(STUNMessage.verifyFingerprint(of: RFC5769.request) == .valid)
    }

    @Test func sampleRequestReencodesByteForByte() throws {
        let id = try #require(STUNTransactionID(bytes: RFC5769.transactionID))
        let message = STUNMessage(type: .bindingRequest, transactionID: id, attributes: [
            .software("STUN test client"),
            .priority(0x6e00_01ff),
            .iceControlled(tieBreaker: 0x932f_f9b1_5126_3b36),
            .username("evtj:h6vY"),
        ])
        let encoded = message.encoded(integrity: shortTermKey, fingerprint: true, paddingByte: 0x20)
        #expect(encoded == RFC5769.request)
    }

    @Test func decodedSampleRequestReencodesUnchanged() throws {
        let message = try STUNMessage.decode(RFC5769.request)
        #expect(message.encoded(paddingByte: 0x20) == RFC5769.request)
    }

    @Test func ipv4ResponseCarriesTheMappedAddress() throws {
        let message = try STUNMessage.decode(RFC5769.ipv4Response)
        #expect(message.type == .bindingSuccess)
        #expect(message.software == "test vector")
        #expect(message.xorMappedAddress == STUNAddress(ipv4: 192, 0, 2, 1, port: 32853))
        #expect(message.xorMappedAddress?.description == "192.0.2.1:32853")
        #expect(STUNMessage.verifyIntegrity(of: RFC5769.ipv4Response, key: shortTermKey) == .valid)
        #expect(STUNMessage.verifyFingerprint(of: RFC5769.ipv4Response) == .valid)
    }

    @Test func ipv4ResponseReencodesByteForByte() throws {
        let id = try #require(STUNTransactionID(bytes: RFC5769.transactionID))
        let message = STUNMessage(type: .bindingSuccess, transactionID: id, attributes: [
            .software("test vector"),
            .xorMappedAddress(STUNAddress(ipv4: 192, 0, 2, 1, port: 32853)),
        ])
        #expect(message.encoded(integrity: shortTermKey, fingerprint: true, paddingByte: 0x20) == RFC5769.ipv4Response)
    }

    @Test func ipv6ResponseCarriesTheMappedAddress() throws {
        let message = try STUNMessage.decode(RFC5769.ipv6Response)
        let expected = STUNAddress(ipv6: (0x2001, 0xdb8, 0x1234, 0x5678, 0x11, 0x2233, 0x4455, 0x6677), port: 32853)
        #expect(message.xorMappedAddress == expected)
        #expect(message.xorMappedAddress?.description == "[2001:db8:1234:5678:11:2233:4455:6677]:32853")
        #expect(STUNMessage.verifyIntegrity(of: RFC5769.ipv6Response, key: shortTermKey) == .valid)
        #expect(STUNMessage.verifyFingerprint(of: RFC5769.ipv6Response) == .valid)
    }

    @Test func ipv6ResponseReencodesByteForByte() throws {
        let id = try #require(STUNTransactionID(bytes: RFC5769.transactionID))
        let address = STUNAddress(ipv6: (0x2001, 0xdb8, 0x1234, 0x5678, 0x11, 0x2233, 0x4455, 0x6677), port: 32853)
        let message = STUNMessage(type: .bindingSuccess, transactionID: id, attributes: [
            .software("test vector"), .xorMappedAddress(address),
        ])
        #expect(message.encoded(integrity: shortTermKey, fingerprint: true, paddingByte: 0x20) == RFC5769.ipv6Response)
    }

    @Test func longTermRequestDecodesAndVerifies() throws {
        let message = try STUNMessage.decode(RFC5769.longTermRequest)
        #expect(message.username == RFC5769.longTermUsername)
        #expect(message.nonce == RFC5769.longTermNonce)
        #expect(message.realm == RFC5769.longTermRealm)
        let key = try #require(STUNKey.longTerm(
            username: RFC5769.longTermUsername, realm: RFC5769.longTermRealm, password: RFC5769.longTermPassword))
        #expect(STUNMessage.verifyIntegrity(of: RFC5769.longTermRequest, key: key) == .valid)
        #expect(STUNMessage.verifyFingerprint(of: RFC5769.longTermRequest) == .absent)
    }

    @Test func longTermRequestReencodesByteForByte() throws {
        let key = try #require(STUNKey.longTerm(
            username: RFC5769.longTermUsername, realm: RFC5769.longTermRealm, password: RFC5769.longTermPassword))
        let id = try #require(STUNTransactionID(bytes: Array(RFC5769.longTermRequest[8..<20])))
        let message = STUNMessage(type: .bindingRequest, transactionID: id, attributes: [
            .username(RFC5769.longTermUsername), .nonce(RFC5769.longTermNonce), .realm(RFC5769.longTermRealm),
        ])
        #expect(message.encoded(integrity: key) == RFC5769.longTermRequest)
        #expect(try STUNMessage.decode(RFC5769.longTermRequest).encoded() == RFC5769.longTermRequest)
    }

    @Test func wrongPasswordFailsIntegrity() throws {
        let wrong = STUNKey.shortTerm(password: "not the password")
        #expect(STUNMessage.verifyIntegrity(of: RFC5769.request, key: wrong) == .invalid)
        let longTerm = try #require(STUNKey.longTerm(
            username: RFC5769.longTermUsername, realm: RFC5769.longTermRealm, password: "TheMatrix"))
        #expect(STUNMessage.verifyIntegrity(of: RFC5769.longTermRequest, key: longTerm) == .invalid)
    }

    @Test func rfc8489Sha256SampleReportsItsUnimplementedAttributes() throws {
        let message = try STUNMessage.decode(RFC5769.sha256Request)
        #expect(message.unknownComprehensionRequiredAttributes == [.userHash, .passwordAlgorithm])
        #expect(message.realm == "example.org")
        #expect(message.attribute(.messageIntegritySHA256) != nil)
    }
}

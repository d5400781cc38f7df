import Testing
@testable import STUN

struct IntegrityTests {
    let id = STUNTransactionID(high: 0xAABB_CCDD, low: 42)
    let key = STUNKey.shortTerm(password: "secret")

    private func signed(sha1: Bool = true, sha256: Bool = false, fingerprint: Bool = true) -> [UInt8] {
        STUNMessage(type: .bindingRequest, transactionID: id, attributes: [.username("u:v"), .priority(5)])
            .encoded(integrity: sha1 ? key : nil, integritySHA256: sha256 ? key : nil, fingerprint: fingerprint)
    }

    @Test func encodedIntegrityAndFingerprintVerify() {
        let bytes = signed()
        #expect(STUNMessage.verifyIntegrity(of: bytes, key: key) == .valid)
        #expect(STUNMessage.verifyFingerprint(of: bytes) == .valid)
    }

    @Test func sha256IntegrityVerifiesAndIsPreferred() throws {
        let bytes = signed(sha1: true, sha256: true)
        #expect(STUNMessage.verifyIntegrity(of: bytes, key: key) == .valid)
        let decoded = try STUNMessage.decode(bytes)
        #expect(decoded.contains(.messageIntegrity) && decoded.contains(.messageIntegritySHA256))
        #expect(STUNMessage.verifyIntegrity(of: signed(sha1: false, sha256: true), key: key) == .valid)
    }

    @Test func wrongKeyFailsIntegrity() {
        #expect(STUNMessage.verifyIntegrity(of: signed(), key: .shortTerm(password: "Secret")) == .invalid)
        #expect(STUNMessage.verifyIntegrity(of: signed(sha256: true), key: .shortTerm(password: "x")) == .invalid)
    }

    @Test func everyFlippedBitIsDetected() {
        let bytes = signed()
        // The MAC covers everything before it; the fingerprint covers all.
        for index in 0..<bytes.count {
            var tampered = bytes
            tampered[index] ^= 0x01
            let integrity = STUNMessage.verifyIntegrity(of: tampered, key: key)
            let fingerprint = STUNMessage.verifyFingerprint(of: tampered)
            #expect(integrity != .valid || fingerprint != .valid, "byte \(index)")
            if index >= 20 && index < bytes.count - 8 { #expect(integrity != .valid, "byte \(index)") }
        }
    }

    @Test func fingerprintMismatchIsDetected() {
        var bytes = signed()
        bytes[bytes.count - 1] ^= 0xFF
        #expect(STUNMessage.verifyFingerprint(of: bytes) == .invalid)
        #expect(STUNMessage.verifyIntegrity(of: bytes, key: key) == .valid)
    }

    @Test func fingerprintMustBeLast() throws {
        var bytes = signed(sha1: false)
        bytes += [0x80, 0x22, 0x00, 0x00] // SOFTWARE after FINGERPRINT
        bytes[3] = UInt8(bytes.count - 20)
        #expect(STUNMessage.verifyFingerprint(of: bytes) == .invalid)
        #expect(try STUNMessage.decode(bytes).software == nil)
    }

    @Test func missingAttributesAreReportedAbsent() {
        let bytes = signed(sha1: false, fingerprint: false)
        #expect(STUNMessage.verifyIntegrity(of: bytes, key: key) == .absent)
        #expect(STUNMessage.verifyFingerprint(of: bytes) == .absent)
        #expect(STUNMessage.verifyFingerprint(of: [1, 2, 3]) == .invalid)
    }

    @Test func crc32MatchesTheStandardCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    @Test func longTermKeyIsMD5OfUserRealmPassword() throws {
        let key = try #require(STUNKey.longTerm(username: "user", realm: "realm", password: "pass"))
        // md5("user:realm:pass")
        #expect(key.bytes == [0x84, 0x93, 0xfb, 0xc5, 0x3b, 0xa5, 0x82, 0xfb, 0x4c, 0x04, 0x4c, 0x45, 0x6b, 0xdc, 0x40, 0xeb])
    }
}

import TestSupport
import Testing
@testable import STUN

struct AttributeTests {
    static let id = STUNTransactionID(high: 0x0102_0304, low: 0x0506_0708_090A_0B0C)
    static let v4 = STUNAddress(ipv4: 203, 0, 113, 7, port: 54321)
    static let v6 = STUNAddress(ipv6: (0x2001, 0xdb8, 0, 0, 0, 0, 0, 1), port: 3478)

    static let samples: [STUNAttribute] = [
        .mappedAddress(v4), .mappedAddress(v6),
        .xorMappedAddress(v4), .xorMappedAddress(v6),
        .username("alice:bob"), .messageIntegrity(Array(repeating: 7, count: 20)),
        .messageIntegritySHA256(Array(repeating: 9, count: 32)), .messageIntegritySHA256(Array(repeating: 9, count: 16)),
        .fingerprint(0xDEAD_BEEF),
        .errorCode(.staleNonce), .errorCode(STUNErrorCode(code: 699, reason: "") ?? .serverError),
        .unknownAttributes([.userHash, STUNAttributeType(rawValue: 0x7777)]), .unknownAttributes([]),
        .realm("example.org"), .nonce("f//499k954d6OL34oL9FSTvy64sA"), .software("chatcli 1.0 ✓"),
        .alternateServer(v6), .priority(0x6e00_01ff), .useCandidate,
        .iceControlled(tieBreaker: .max), .iceControlling(tieBreaker: 42),
        .otherAddress(v4), .responseOrigin(v6),
        .changeRequest(changeIP: true, changePort: false), .changeRequest(changeIP: false, changePort: true),
        .channelNumber(0x4000), .lifetime(600), .xorPeerAddress(v6), .xorPeerAddress(v4),
        .data([1, 2, 3, 4, 5]), .data([]), .xorRelayedAddress(v4),
        .requestedAddressFamily(.ipv6), .evenPort(reserveNextPort: true), .evenPort(reserveNextPort: false),
        .requestedTransport(17), .dontFragment, .reservationToken(0x0123_4567_89AB_CDEF),
        .other(STUNAttributeType(rawValue: 0xC001), [0xAA, 0xBB, 0xCC]),
        .other(.userHash, Array(repeating: 1, count: 32)),
    ]

    @Test(arguments: samples)
    func everyAttributeRoundTrips(_ attribute: STUNAttribute) throws {
        let message = STUNMessage(type: .bindingRequest, transactionID: Self.id, attributes: [attribute])
        let decoded = try STUNMessage.decode(message.encoded())
        #expect(decoded == message)
    }

    @Test func allAttributesRoundTripTogetherInOrder() throws {
        let plain = Self.samples.filter {
            ![.messageIntegrity, .messageIntegritySHA256, .fingerprint].contains($0.type)
        }
        let message = STUNMessage(type: STUNMessageType(method: .allocate, messageClass: .successResponse),
                                  transactionID: Self.id, attributes: plain)
        let bytes = message.encoded(paddingByte: 0xFF)
        #expect(bytes.count % 4 == 0)
        #expect(try STUNMessage.decode(bytes) == message)
    }

    @Test func xorAddressesAreObfuscatedOnTheWire() {
        let bytes = STUNMessage(type: .bindingSuccess, transactionID: Self.id,
                                attributes: [.xorMappedAddress(Self.v4)]).encoded()
        // port 54321 ^ 0x2112, 203.0.113.7 ^ 0x2112A442
        #expect(Array(bytes[24...31]) == [0x00, 0x01, 0xF5, 0x23, 0xEA, 0x12, 0xD5, 0x45])
    }

    @Test func xorIPv6UsesTheTransactionID() throws {
        let message = STUNMessage(type: .bindingSuccess, transactionID: Self.id, attributes: [.xorMappedAddress(Self.v6)])
        let bytes = message.encoded()
        let expectedIP: [UInt8] = zip(Self.v6.ip, [0x21, 0x12, 0xA4, 0x42] + Self.id.bytes).map { $0 ^ $1 }
        #expect(Array(bytes[28..<44]) == expectedIP)
        let other = STUNTransactionID(high: 0, low: 0)
        var tampered = bytes
        tampered.replaceSubrange(8..<20, with: other.bytes)
        #expect(try STUNMessage.decode(tampered).xorMappedAddress != Self.v6)
    }

    @Test func messageTypeBitsFollowRFC8489() {
        #expect(STUNMessageType.bindingRequest.rawValue == 0x0001)
        #expect(STUNMessageType.bindingIndication.rawValue == 0x0011)
        #expect(STUNMessageType.bindingSuccess.rawValue == 0x0101)
        #expect(STUNMessageType.bindingError.rawValue == 0x0111)
        #expect(STUNMessageType(method: .allocate, messageClass: .request).rawValue == 0x0003)
        #expect(STUNMessageType(method: .data, messageClass: .indication).rawValue == 0x0017)
        #expect(STUNMessageType(method: .channelBind, messageClass: .errorResponse).rawValue == 0x0119)
        for raw in UInt16(0)...0x3FFF {
            #expect(STUNMessageType(rawValue: raw)?.rawValue == raw)
        }
        #expect(STUNMessageType(rawValue: 0x4001) == nil)
    }

    @Test func errorCodeEncodesClassAndNumber() throws {
        let message = STUNMessage(type: .bindingError, transactionID: Self.id, attributes: [.errorCode(.unknownAttribute)])
        let bytes = message.encoded()
        #expect(Array(bytes[24..<28]) == [0, 0, 4, 20])
        #expect(try STUNMessage.decode(bytes).errorCode == .unknownAttribute)
        #expect(STUNErrorCode(code: 299, reason: "x") == nil)
        #expect(STUNErrorCode(code: 700, reason: "x") == nil)
    }

    @Test func malformedKnownAttributeIsReported() {
        // PRIORITY with a 2-byte value.
        var bytes = STUNMessage(type: .bindingRequest, transactionID: Self.id,
                                attributes: [.other(.priority, [1, 2])]).encoded()
        #expect(throws: STUNError.malformedAttribute(.priority)) { try STUNMessage.decode(bytes) }
        // USERNAME that is not UTF-8.
        bytes = STUNMessage(type: .bindingRequest, transactionID: Self.id,
                            attributes: [.other(.username, [0xFF, 0xFE])]).encoded()
        #expect(throws: STUNError.malformedAttribute(.username)) { try STUNMessage.decode(bytes) }
    }

    @Test func unknownComprehensionRequiredAttributesAreReportedOnce() throws {
        let message = STUNMessage(type: .bindingRequest, transactionID: Self.id, attributes: [
            .other(STUNAttributeType(rawValue: 0x7001), []), .other(STUNAttributeType(rawValue: 0xC001), []),
            .software("x"), .other(STUNAttributeType(rawValue: 0x7001), [1]), .other(.padding, [0, 0, 0, 0]),
        ])
        let decoded = try STUNMessage.decode(message.encoded())
        #expect(decoded.unknownComprehensionRequiredAttributes == [STUNAttributeType(rawValue: 0x7001), .padding])
    }

    @Test func attributesAfterIntegrityAreIgnored() throws {
        let key = STUNKey.shortTerm(password: "pw")
        let signed = STUNMessage(type: .bindingRequest, transactionID: Self.id, attributes: [.username("a:b")])
            .encoded(integrity: key)
        // An attacker appends a PRIORITY after MESSAGE-INTEGRITY.
        var bytes = signed + [0x00, 0x24, 0x00, 0x04, 0, 0, 0, 1]
        bytes[3] = UInt8(bytes.count - 20)
        let decoded = try STUNMessage.decode(bytes)
        #expect(decoded.priority == nil)
        #expect(decoded.username == "a:b")
        #expect(STUNMessage.verifyIntegrity(of: bytes, key: key) == .valid)
    }

    @Test func addressDescriptionsAreCanonical() {
        #expect(Self.v4.description == "203.0.113.7:54321")
        #expect(Self.v6.description == "[2001:db8::1]:3478")
        #expect(STUNAddress(ipv6: (0, 0, 0, 0, 0, 0, 0, 1), port: 5).description == "[::1]:5")
        #expect(STUNAddress(ipv6: (0, 0, 0, 0, 0, 0, 0, 0), port: 5).description == "[::]:5")
        #expect(STUNAddress(ipv6: (1, 0, 0, 2, 0, 0, 0, 3), port: 5).description == "[1:0:0:2::3]:5")
        #expect(STUNAddress(ipv6: (1, 0, 2, 3, 4, 5, 6, 7), port: 5).description == "[1:0:2:3:4:5:6:7]:5")
        #expect(STUNAddress(ip: [1, 2, 3], port: 1) == nil)
    }

    @Test func transactionIDsComeFromTheInjectedGenerator() {
        var a = SeededRandom(seed: 1), b = SeededRandom(seed: 1)
        #expect(STUNTransactionID.random(using: &a) == STUNTransactionID.random(using: &b))
        #expect(STUNTransactionID.random(using: &a) != STUNTransactionID.random(using: &a))
        let id = STUNTransactionID.random(using: &a)
        #expect(STUNTransactionID(bytes: id.bytes) == id)
        #expect(STUNTransactionID(bytes: [1, 2]) == nil)
    }

    @Test func streamFramingReadsTheLengthFromTheHeader() {
        #expect(STUNMessage.frameLength(of: RFC5769.request[0..<8]) == 108)
        #expect(STUNMessage.frameLength(of: (RFC5769.ipv4Response + [1, 2, 3])[...]) == 80)
        #expect(STUNMessage.frameLength(of: RFC5769.request[0..<7]) == nil)
        #expect(STUNMessage.frameLength(of: [0x17, 0xfe, 0xfd, 0, 0, 0, 0, 0][...]) == nil)
        #expect(STUNMessage.isSTUN(RFC5769.request))
        #expect(!STUNMessage.isSTUN(Array(RFC5769.request.dropLast())))
    }
}

import TestSupport
import Testing
@testable import STUN

struct ResponderTests {
    let local = STUNAddress(ipv4: 192, 0, 2, 1, port: 3478)
    let clientV4 = STUNAddress(ipv4: 203, 0, 113, 9, port: 61000)
    let clientV6 = STUNAddress(ipv6: (0x2001, 0xdb8, 0, 0, 0, 0, 0xbeef, 1), port: 61001)
    let responder = STUNResponder(software: "chatcli", otherAddress: .port(3479))
    let id = STUNTransactionID(high: 0x1234, low: 0x5678)

    private func request(_ attributes: [STUNAttribute] = [], type: STUNMessageType = .bindingRequest) -> [UInt8] {
        STUNMessage(type: type, transactionID: id, attributes: attributes).encoded(fingerprint: true)
    }

    @Test func bindingRequestFromIPv4GetsItsReflexiveAddress() throws {
        let bytes = try #require(responder.respond(to: request(), from: clientV4, receivedOn: local))
        let response = try STUNMessage.decode(bytes)
        #expect(response.type == .bindingSuccess)
        #expect(response.transactionID == id)
        #expect(response.xorMappedAddress == clientV4)
        #expect(response.mappedAddress == nil)
        #expect(response.responseOrigin == local)
        #expect(response.otherAddress == STUNAddress(ipv4: 192, 0, 2, 1, port: 3479))
        #expect(response.software == "chatcli")
        #expect(STUNMessage.verifyFingerprint(of: bytes) == .valid)
    }

    @Test func bindingRequestFromIPv6GetsItsReflexiveAddress() throws {
        let local6 = STUNAddress(ipv6: (0x2001, 0xdb8, 0, 0, 0, 0, 0, 1), port: 3478)
        let responder = STUNResponder(otherAddress: .none, includesMappedAddress: true)
        let bytes = try #require(responder.respond(to: request(), from: clientV6, receivedOn: local6))
        let response = try STUNMessage.decode(bytes)
        #expect(response.xorMappedAddress == clientV6)
        #expect(response.mappedAddress == clientV6)
        #expect(response.responseOrigin == local6)
        #expect(response.otherAddress == nil)
        #expect(response.software == nil)
    }

    @Test func wildcardLocalAddressIsNotAdvertised() throws {
        let any = STUNAddress(ipv4: 0, 0, 0, 0, port: 3478)
        let bytes = try #require(responder.respond(to: request(), from: clientV4, receivedOn: any))
        let response = try STUNMessage.decode(bytes)
        #expect(response.responseOrigin == nil && response.otherAddress == nil)
        #expect(response.xorMappedAddress == clientV4)
    }

    @Test func unknownComprehensionRequiredAttributeGets420() throws {
        let unknown = STUNAttributeType(rawValue: 0x7F01)
        let input = request([.other(unknown, [1]), .other(STUNAttributeType(rawValue: 0xFF01), [])])
        let bytes = try #require(responder.respond(to: input, from: clientV4, receivedOn: local))
        let response = try STUNMessage.decode(bytes)
        #expect(response.type == .bindingError)
        #expect(response.errorCode?.code == 420)
        #expect(response.unknownAttributes == [unknown])
        #expect(response.transactionID == id)
        #expect(STUNMessage.verifyFingerprint(of: bytes) == .valid)
    }

    @Test func malformedButParsableRequestGets400() throws {
        let input = request([.other(.xorMappedAddress, [0, 9, 0, 0])])
        let response = try STUNMessage.decode(try #require(responder.respond(to: input, from: clientV4, receivedOn: local)))
        #expect(response.errorCode?.code == 400)
        // Attribute framing that overruns the message.
        var truncated = STUNMessage(type: .bindingRequest, transactionID: id, attributes: [.software("abcd")]).encoded()
        truncated[23] = 0x40
        let second = try STUNMessage.decode(try #require(responder.respond(to: truncated, from: clientV4, receivedOn: local)))
        #expect(second.errorCode == .badRequest)
    }

    @Test func nonBindingRequestGets400() throws {
        let input = request(type: STUNMessageType(method: .allocate, messageClass: .request))
        let response = try STUNMessage.decode(try #require(responder.respond(to: input, from: clientV4, receivedOn: local)))
        #expect(response.type == STUNMessageType(method: .allocate, messageClass: .errorResponse))
        #expect(response.errorCode == .badRequest)
    }

    @Test func indicationsResponsesAndGarbageAreIgnored() {
        #expect(responder.respond(to: request(type: .bindingIndication), from: clientV4, receivedOn: local) == nil)
        #expect(responder.respond(to: request(type: .bindingSuccess), from: clientV4, receivedOn: local) == nil)
        #expect(responder.respond(to: [], from: clientV4, receivedOn: local) == nil)
        #expect(responder.respond(to: Array("GET / HTTP/1.1\r\n\r\n".utf8), from: clientV4, receivedOn: local) == nil)
        var badCookie = request()
        badCookie[4] = 0
        #expect(responder.respond(to: badCookie, from: clientV4, receivedOn: local) == nil)
        var badFingerprint = request()
        badFingerprint[badFingerprint.count - 1] ^= 1
        #expect(responder.respond(to: badFingerprint, from: clientV4, receivedOn: local) == nil)
    }

    @Test func changeRequestIsRefusedWithoutAnAlternateOrigin() throws {
        let input = request([.changeRequest(changeIP: false, changePort: true)])
        let response = try STUNMessage.decode(try #require(responder.respond(to: input, from: clientV4, receivedOn: local)))
        #expect(response.errorCode?.code == 420)
        #expect(response.unknownAttributes == [.changeRequest])
        let noChange = request([.changeRequest(changeIP: false, changePort: false)])
        let ok = try STUNMessage.decode(try #require(responder.respond(to: noChange, from: clientV4, receivedOn: local)))
        #expect(ok.type == .bindingSuccess)
    }

    @Test func changePortIsHonouredFromTheOtherPort() throws {
        let input = request([.changeRequest(changeIP: false, changePort: true)])
        let reply = try #require(responder.reply(to: input, from: clientV4, receivedOn: local))
        let other = local.with(port: 3479)
        #expect(reply.origin == other)
        #expect(try STUNMessage.decode(reply.bytes).responseOrigin == other)
        let changeIP = request([.changeRequest(changeIP: true, changePort: false)])
        let refused = try #require(responder.reply(to: changeIP, from: clientV4, receivedOn: local))
        #expect(try STUNMessage.decode(refused.bytes).errorCode?.code == 420)
    }

    @Test func clientAndResponderTalk() throws {
        var client = STUNClient()
        var rng = SeededRandom(seed: 3)
        client.startBinding(to: local, now: .zero, using: &rng)
        let sent = client.pollTransmit()
        let transmit = try #require(sent)
        let answer = try #require(responder.respond(to: transmit.bytes, from: clientV6, receivedOn: local))
        let consumed = client.handleInput(answer, from: local, now: .milliseconds(20))
        #expect(consumed)
        guard case .response(let response) = client.pollEvent() else {
            Issue.record("no response")
            return
        }
        #expect(response.message.xorMappedAddress == clientV6)
        #expect(response.message.otherAddress == local.with(port: 3479))
    }
}

import Testing
import WebSocket

private func decodeAll(_ bytes: [UInt8], bytewise: Bool = false) throws -> [WebSocketFrame] {
    var decoder = WebSocketFrameDecoder(maxPayloadSize: 1 << 17)
    var out: [WebSocketFrame] = []
    if bytewise {
        for b in bytes {
            decoder.feed([b])
            while let f = try decoder.next() { out.append(f) }
        }
    } else {
        decoder.feed(bytes)
        while let f = try decoder.next() { out.append(f) }
    }
    return out
}

private let hello: [UInt8] = [0x48, 0x65, 0x6c, 0x6c, 0x6f]

@Test func rfcUnmaskedTextFrameEncodesAndDecodes() throws {
    let wire: [UInt8] = [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]
    #expect(WebSocketFrame(opcode: .text, payload: hello).encoded() == wire)
    #expect(try decodeAll(wire) == [WebSocketFrame(opcode: .text, payload: hello)])
}

@Test func rfcMaskedTextFrameEncodesAndDecodes() throws {
    let wire: [UInt8] = [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]
    let frame = WebSocketFrame(opcode: .text, maskKey: 0x37FA_213D, payload: hello)
    #expect(frame.encoded() == wire)
    #expect(try decodeAll(wire, bytewise: true) == [frame])
}

@Test func rfcFragmentedTextFramesDecode() throws {
    let wire: [UInt8] = [0x01, 0x03, 0x48, 0x65, 0x6c, 0x80, 0x02, 0x6c, 0x6f]
    let decoded = try decodeAll(wire, bytewise: true)
    #expect(decoded == [
        WebSocketFrame(fin: false, opcode: .text, payload: Array(hello[0..<3])),
        WebSocketFrame(fin: true, opcode: .continuation, payload: Array(hello[3...])),
    ])
}

@Test func rfcPingAndMaskedPongDecode() throws {
    let ping: [UInt8] = [0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]
    let pong: [UInt8] = [0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]
    #expect(try decodeAll(ping + pong) == [
        WebSocketFrame(opcode: .ping, payload: hello),
        WebSocketFrame(opcode: .pong, maskKey: 0x37FA_213D, payload: hello),
    ])
    #expect(WebSocketFrame(opcode: .pong, maskKey: 0x37FA_213D, payload: hello).encoded() == pong)
}

@Test func rfc256ByteBinaryUsesSixteenBitLength() throws {
    let payload = (0..<256).map { UInt8(truncatingIfNeeded: $0) }
    let wire = WebSocketFrame(opcode: .binary, payload: payload).encoded()
    #expect(Array(wire.prefix(4)) == [0x82, 0x7E, 0x01, 0x00])
    #expect(wire.count == 260)
    #expect(try decodeAll(wire).first?.payload == payload)
}

@Test func rfc64KiBBinaryUsesSixtyFourBitLength() throws {
    let payload = (0..<65536).map { UInt8(truncatingIfNeeded: $0 * 7) }
    let wire = WebSocketFrame(opcode: .binary, payload: payload).encoded()
    #expect(Array(wire.prefix(10)) == [0x82, 0x7F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00])
    #expect(try decodeAll(wire).first?.payload == payload)
}

@Test func lengthBoundariesRoundTrip() throws {
    for n in [0, 1, 125, 126, 127, 65535, 65536] {
        let payload = [UInt8](repeating: 0x5A, count: n)
        let frame = WebSocketFrame(opcode: .binary, maskKey: 0x0102_0304, payload: payload)
        let decoded = try decodeAll(frame.encoded())
        #expect(decoded == [frame], "length \(n)")
    }
}

@Test func decoderRejectsReservedOpcodes() {
    for op: UInt8 in [3, 4, 5, 6, 7, 0xB, 0xC, 0xD, 0xE, 0xF] {
        #expect(throws: WebSocketError.reservedOpcode(op)) { _ = try decodeAll([0x80 | op, 0x00]) }
    }
}

@Test func decoderRejectsBadControlFramesAndLengths() {
    #expect(throws: WebSocketError.fragmentedControlFrame) { _ = try decodeAll([0x09, 0x00]) }
    #expect(throws: WebSocketError.controlFrameTooLong) { _ = try decodeAll([0x89, 0x7E, 0x00, 0x7E]) }
    #expect(throws: WebSocketError.invalidPayloadLength) { _ = try decodeAll([0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0]) }
    #expect(throws: WebSocketError.frameTooLarge(1 << 40)) { _ = try decodeAll([0x82, 0x7F, 0, 0, 0x01, 0, 0, 0, 0, 0]) }
}

@Test func decoderWaitsForTheWholeFrame() throws {
    var decoder = WebSocketFrameDecoder()
    let wire = WebSocketFrame(opcode: .text, maskKey: 9, payload: hello).encoded()
    for b in wire.dropLast() {
        decoder.feed([b])
        #expect(try decoder.next() == nil)
    }
    decoder.feed([wire[wire.count - 1]])
    #expect(try decoder.next()?.payload == hello)
}

@Test func base64MatchesRFC4648Vectors() {
    let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
    for (plain, encoded) in vectors {
        #expect(Base64Check.encode(plain) == encoded)
        #expect(Base64Check.decode(encoded) == plain)
    }
    for bad in ["Zg=", "Zm9v=", "Z===", "Zh==", "Zm9=", "Zg==Zg==", "Zm 9v", "Zm9v\n", "@@@@"] {
        #expect(Base64Check.decode(bad) == nil, "\(bad)")
    }
}

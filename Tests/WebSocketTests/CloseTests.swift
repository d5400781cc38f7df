import Testing
import WebSocket

@Test func peerCloseIsEchoedAndReported() {
    var ws = WebSocketConnection.server()
    #expect(ws.feed(clientFrame(.close, closePayload(1001, Array("bye".utf8)))) == [.close(code: .goingAway, reason: "bye")])
    #expect(frames(ws.pollTransmit()) == [WebSocketFrame(opcode: .close, payload: closePayload(1001))])
    #expect(ws.isClosed)
    let sentLate = ws.sendText("late")
    #expect(!sentLate)
    #expect(ws.feed(clientFrame(.text, [0x41])).isEmpty)
}

@Test func emptyCloseIsEchoedEmpty() {
    var ws = newClient()
    #expect(ws.feed(serverFrame(.close, [])) == [.close(code: nil, reason: "")])
    #expect(frames(ws.pollTransmit()) == [WebSocketFrame(opcode: .close, maskKey: rfcMaskKey, payload: [])])
}

@Test func ourCloseWaitsForThePeersClose() {
    var ws = WebSocketConnection.server()
    ws.close(code: .normalClosure, reason: "done")
    #expect(ws.state == .closing)
    #expect(frames(ws.pollTransmit()) == [WebSocketFrame(opcode: .close, payload: closePayload(1000, Array("done".utf8)))])
    let sent = ws.sendText("x")
    #expect(!sent)
    // Data still in flight from the peer is delivered, but pings are not answered.
    #expect(ws.feed(clientFrame(.text, [0x41]) + clientFrame(.ping, [])) == [.text("A"), .ping([])])
    #expect(ws.pollTransmit() == nil)
    #expect(ws.feed(clientFrame(.close, closePayload(1000))) == [.close(code: .normalClosure, reason: "")])
    #expect(ws.isClosed)
    #expect(ws.pollTransmit() == nil)
}

@Test func closeReasonIsTruncatedOnACharacterBoundary() {
    var ws = WebSocketConnection.server()
    ws.close(code: .goingAway, reason: String(repeating: "é", count: 100))
    let payload = frames(ws.pollTransmit()).first?.payload ?? []
    #expect(payload.count == 2 + 122)
}

@Test func validCloseCodesAreAccepted() {
    for code: UInt16 in [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999] {
        var ws = WebSocketConnection.server()
        #expect(ws.feed(clientFrame(.close, closePayload(code))) == [.close(code: WebSocketCloseCode(rawValue: code), reason: "")], "\(code)")
    }
}

@Test func invalidCloseCodesClose1002() {
    for code: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535] {
        var ws = WebSocketConnection.server()
        #expect(ws.feed(clientFrame(.close, closePayload(code))) == [.failed(.invalidCloseCode(code))], "\(code)")
        #expect(frames(ws.pollTransmit()).first?.payload == closePayload(1002))
    }
}

@Test func oneByteClosePayloadCloses1002() {
    var ws = WebSocketConnection.server()
    #expect(ws.feed(clientFrame(.close, [0x03])) == [.failed(.invalidClosePayload)])
    #expect(frames(ws.pollTransmit()).first?.payload == closePayload(1002))
}

@Test func invalidUTF8CloseReasonCloses1007() {
    var ws = WebSocketConnection.server()
    #expect(ws.feed(clientFrame(.close, closePayload(1000, [0xCE, 0xBA, 0xE1, 0xBD]))) == [.failed(.invalidUTF8)])
    #expect(frames(ws.pollTransmit()).first?.payload == closePayload(1007))
}

@Test func closeCodesThatMustNotBeSentAreReplaced() {
    var ws = WebSocketConnection.server()
    ws.close(code: .noStatusReceived)
    #expect(frames(ws.pollTransmit()).first?.payload == closePayload(1000))
}

import Synchronization
import Testing
import WebSocket

private let hello = Array("Hello".utf8)

@Test func serverReceivesRFCMaskedTextFrame() {
    var ws = WebSocketConnection.server()
    let events = ws.feed([0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])
    #expect(events == [.text("Hello")])
    #expect(ws.pollTransmit() == nil)
}

@Test func clientReceivesRFCUnmaskedAndFragmentedText() {
    var ws = newClient()
    #expect(ws.feed([0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]) == [.text("Hello")])
    #expect(feedBytewise(&ws, [0x01, 0x03, 0x48, 0x65, 0x6c, 0x80, 0x02, 0x6c, 0x6f]) == [.text("Hello")])
}

@Test func serverSendsUnmaskedAndClientSendsMaskedFrames() {
    var server = WebSocketConnection.server()
    server.sendText("Hello")
    #expect(server.pollTransmit() == [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f])
    var client = newClient()
    client.sendText("Hello")
    #expect(client.pollTransmit() == [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])
}

@Test func clientUsesAFreshMaskKeyPerFrame() {
    let keys = KeyCounter()
    var client = WebSocketConnection.client(maskKeys: { keys.next() })
    client.sendBinary([1, 2, 3])
    client.ping()
    #expect(frames(client.pollTransmit()).map(\.maskKey) == [1, 2])
}

/// Counts up; a `Mutex` makes it `Sendable` for the `@Sendable` key closure.
private final class KeyCounter: Sendable {
    private let value = Mutex<UInt32>(0)
    func next() -> UInt32 {
        value.withLock { v in
            v += 1
            return v
        }
    }
}

@Test func idleConnectionStateIsSmall() {
    // 10,000 idle sockets must fit well under 200 MB; the inline state is what stays.
    #expect(MemoryLayout<WebSocketConnection>.size <= 160)
}

@Test func fragmentedMessageWithInterleavedPingIsReassembled() {
    var ws = WebSocketConnection.server()
    let input = clientFrame(.text, Array("Hel".utf8), fin: false) + clientFrame(.ping, [7])
        + clientFrame(.continuation, Array("l".utf8), fin: false) + clientFrame(.continuation, Array("o".utf8))
    #expect(feedBytewise(&ws, input) == [.ping([7]), .text("Hello")])
    #expect(frames(ws.pollTransmit()) == [WebSocketFrame(opcode: .pong, payload: [7])])
}

@Test func binaryMessagesAndPongsAreReported() {
    var ws = WebSocketConnection.server()
    let events = ws.feed(clientFrame(.binary, [0, 255], fin: false) + clientFrame(.continuation, [1]) + clientFrame(.pong, hello))
    #expect(events == [.binary([0, 255, 1]), .pong(hello)])
}

@Test func rfcPingIsAnsweredWithPongCarryingItsPayload() {
    var ws = newClient()
    #expect(ws.feed([0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]) == [.ping(hello)])
    #expect(ws.pollTransmit() == [0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])
}

@Test func invalidUTF8InTextCloses1007() {
    for payload: [UInt8] in [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]] {
        var ws = WebSocketConnection.server()
        #expect(ws.feed(clientFrame(.text, payload)) == [.failed(.invalidUTF8)])
        #expect(frames(ws.pollTransmit()) == [WebSocketFrame(opcode: .close, payload: closePayload(1007))])
        #expect(ws.isClosed)
    }
}

@Test func utf8SplitAcrossFragmentsIsAccepted() {
    var ws = WebSocketConnection.server()
    let euro: [UInt8] = [0xE2, 0x82, 0xAC]
    let input = clientFrame(.text, [0x41, euro[0]], fin: false) + clientFrame(.continuation, [euro[1]], fin: false)
        + clientFrame(.continuation, [euro[2]])
    #expect(ws.feed(input) == [.text("A€")])
}

@Test func invalidUTF8SplitAcrossFragmentsFailsAtTheBadFragment() {
    var ws = WebSocketConnection.server()
    #expect(ws.feed(clientFrame(.text, [0xCE, 0xBA, 0xE1], fin: false)).isEmpty)
    #expect(ws.feed(clientFrame(.continuation, [0x28], fin: false)) == [.failed(.invalidUTF8)])
    var truncated = WebSocketConnection.server()
    let input = clientFrame(.text, [0x41, 0xE2], fin: false) + clientFrame(.continuation, [0x82])
    #expect(truncated.feed(input) == [.failed(.invalidUTF8)])
}

@Test func maskRuleIsEnforcedInBothDirections() {
    var server = WebSocketConnection.server()
    #expect(server.feed(serverFrame(.text, hello)) == [.failed(.unmaskedClientFrame)])
    #expect(frames(server.pollTransmit()) == [WebSocketFrame(opcode: .close, payload: closePayload(1002))])
    var client = newClient()
    #expect(client.feed(clientFrame(.text, hello)) == [.failed(.maskedServerFrame)])
    #expect(frames(client.pollTransmit()).first?.payload == closePayload(1002))
}

@Test func reservedBitsAndOpcodesClose1002() {
    var a = WebSocketConnection.server()
    #expect(a.feed(clientFrame(.text, hello, rsv: 0b100)) == [.failed(.reservedBitsSet)])
    var b = WebSocketConnection.server()
    #expect(b.feed([0x83, 0x80, 1, 2, 3, 4]) == [.failed(.reservedOpcode(3))])
    #expect(frames(b.pollTransmit()).first?.payload == closePayload(1002))
}

@Test func badControlFramesClose1002() {
    var a = WebSocketConnection.server()
    #expect(a.feed(clientFrame(.ping, [UInt8](repeating: 1, count: 126))) == [.failed(.controlFrameTooLong)])
    var b = WebSocketConnection.server()
    #expect(b.feed(clientFrame(.ping, [], fin: false)) == [.failed(.fragmentedControlFrame)])
    var c = WebSocketConnection.server()
    #expect(c.feed(clientFrame(.ping, [UInt8](repeating: 1, count: 125))) == [.ping([UInt8](repeating: 1, count: 125))])
}

@Test func continuationOrderIsEnforced() {
    var a = WebSocketConnection.server()
    #expect(a.feed(clientFrame(.continuation, hello)) == [.failed(.unexpectedContinuation)])
    var b = WebSocketConnection.server()
    #expect(b.feed(clientFrame(.text, hello, fin: false) + clientFrame(.binary, hello)) == [.failed(.expectedContinuation)])
}

@Test func oversizedMessageIsReportedAndConnectionStaysUsable() {
    var ws = WebSocketConnection.server(maxMessageSize: 10)
    let input = clientFrame(.text, Array("0123456789A".utf8)) + clientFrame(.text, Array("ok".utf8))
    #expect(feedBytewise(&ws, input) == [.messageTooBig(limit: 10), .text("ok")])
    #expect(!ws.isClosed)
    #expect(ws.pollTransmit() == nil)
}

@Test func oversizedFragmentedMessageIsSkippedToItsEnd() {
    var ws = WebSocketConnection.server(maxMessageSize: 10)
    let input = clientFrame(.text, Array("012345".utf8), fin: false) + clientFrame(.continuation, Array("6789AB".utf8), fin: false)
        + clientFrame(.ping, [1]) + clientFrame(.continuation, [0xFF, 0xFF]) + clientFrame(.binary, [9])
    #expect(ws.feed(input) == [.messageTooBig(limit: 10), .ping([1]), .binary([9])])
    #expect(frames(ws.pollTransmit()) == [WebSocketFrame(opcode: .pong, payload: [1])])
}

@Test func hugeDeclaredLengthIsSkippedWithoutBuffering() {
    var ws = WebSocketConnection.server()
    let header: [UInt8] = [0x82, 0xFF, 0, 0, 0, 0x01, 0, 0, 0, 0, 1, 2, 3, 4]  // 4 GiB, masked
    #expect(ws.feed(header) == [.messageTooBig(limit: 65536)])
    #expect(ws.feed([UInt8](repeating: 0, count: 100_000)).isEmpty)
    #expect(!ws.isClosed)
}

@Test func messageExactlyAtLimitIsDelivered() {
    var ws = WebSocketConnection.server()
    let payload = [UInt8](repeating: 0x61, count: 65536)
    #expect(ws.feed(clientFrame(.binary, Array(payload[..<30000]), fin: false) + clientFrame(.continuation, Array(payload[30000...]))) == [.binary(payload)])
    var over = WebSocketConnection.server()
    #expect(over.feed(clientFrame(.binary, payload + [1])) == [.messageTooBig(limit: 65536)])
}

@Test func oversizedMessageClosesWith1009WhenConfigured() {
    var ws = WebSocketConnection.server(maxMessageSize: 4, oversizedMessagePolicy: .close)
    #expect(ws.feed(clientFrame(.text, hello)) == [.failed(.messageTooBig(5))])
    #expect(frames(ws.pollTransmit()).first?.payload == closePayload(1009))
}

@Test func clientAndServerTalkThroughAnInMemoryPipe() {
    var client = WebSocketConnection.client(maskKeys: { 0xDEAD_BEEF })
    var server = WebSocketConnection.server()
    client.sendText(#"{"type":"join_room","roomId":"r"}"#)
    client.sendBinary([1, 2, 3])
    client.ping([9])
    #expect(server.feed(client.pollTransmit() ?? []) == [.text(#"{"type":"join_room","roomId":"r"}"#), .binary([1, 2, 3]), .ping([9])])
    server.sendText("ack")
    #expect(client.feed(server.pollTransmit() ?? []) == [.pong([9]), .text("ack")])
}


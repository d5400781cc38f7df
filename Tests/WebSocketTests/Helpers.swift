import WebSocket

/// The key from RFC 6455 §5.7's masked examples.
let rfcMaskKey: UInt32 = 0x37FA_213D

/// A client frame as a browser would send it (masked with the RFC key).
func clientFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0) -> [UInt8] {
    WebSocketFrame(fin: fin, rsv: rsv, opcode: opcode, maskKey: rfcMaskKey, payload: payload).encoded()
}

func serverFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true) -> [UInt8] {
    WebSocketFrame(fin: fin, opcode: opcode, payload: payload).encoded()
}

func closePayload(_ code: UInt16, _ reason: [UInt8] = []) -> [UInt8] {
    [UInt8(code >> 8), UInt8(code & 0xFF)] + reason
}

func newClient() -> WebSocketConnection {
    WebSocketConnection.client(maskKeys: { rfcMaskKey })
}

/// Feeds `bytes` one at a time, collecting events.
func feedBytewise(_ ws: inout WebSocketConnection, _ bytes: [UInt8]) -> [WebSocketEvent] {
    var events: [WebSocketEvent] = []
    for b in bytes { events += ws.feed([b]) }
    return events
}

/// Decodes every frame in `bytes` (such as a connection's transmit queue).
func frames(_ bytes: [UInt8]?) -> [WebSocketFrame] {
    var decoder = WebSocketFrameDecoder(maxPayloadSize: 1 << 20)
    decoder.feed(bytes ?? [])
    var out: [WebSocketFrame] = []
    while let f = try? decoder.next() { out.append(f) }
    return out
}

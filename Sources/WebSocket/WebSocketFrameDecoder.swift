import Wire

/// The fixed part of a frame: everything before the payload (RFC 6455 §5.2).
struct WebSocketFrameHeader: Sendable {
    var fin: Bool
    var rsv: UInt8
    var opcode: WebSocketOpcode
    var maskKey: UInt32?
    var payloadLength: Int
    /// Bytes from the first header byte to the first payload byte (2–14).
    var headerLength: Int

    /// Parses the header at the front of `queue` without consuming it; nil
    /// until all of its bytes have arrived. Rules that need no context (opcode,
    /// length form, control-frame size and FIN) are enforced here, as early as
    /// the offending byte is seen.
    static func parse(_ queue: ByteQueue) throws(WebSocketError) -> WebSocketFrameHeader? {
        guard let b0 = queue[0] else { return nil }
        guard let opcode = WebSocketOpcode(rawValue: b0 & 0x0F) else { throw .reservedOpcode(b0 & 0x0F) }
        let fin = b0 & 0x80 != 0
        if opcode.isControl, !fin { throw .fragmentedControlFrame }
        guard let b1 = queue[1] else { return nil }
        let length7 = Int(b1 & 0x7F)
        if opcode.isControl, length7 > 125 { throw .controlFrameTooLong }
        var offset = 2
        var length = length7
        if length7 == 126 {
            guard let hi = queue[2], let lo = queue[3] else { return nil }
            length = Int(hi) << 8 | Int(lo)
            offset = 4
        } else if length7 == 127 {
            guard let first = queue[2] else { return nil }
            guard first & 0x80 == 0 else { throw .invalidPayloadLength }
            guard queue.count >= 10 else { return nil }
            var value = 0
            for i in 2..<10 { value = value << 8 | Int(queue[i] ?? 0) }
            length = value
            offset = 10
        }
        var maskKey: UInt32?
        if b1 & 0x80 != 0 {
            guard queue.count >= offset + 4 else { return nil }
            var key: UInt32 = 0
            for i in offset..<offset + 4 { key = key << 8 | UInt32(queue[i] ?? 0) }
            maskKey = key
            offset += 4
        }
        return WebSocketFrameHeader(
            fin: fin, rsv: (b0 >> 4) & 0x7, opcode: opcode, maskKey: maskKey, payloadLength: length, headerLength: offset)
    }
}

/// Decodes frames from a byte stream as it arrives, one frame at a time.
///
/// This is the bare RFC 6455 §5 codec; ``WebSocketConnection`` adds the
/// message-level rules (masking direction, fragmentation, UTF-8, close).
/// A frame whose payload exceeds `maxPayloadSize` throws
/// ``WebSocketError/frameTooLarge(_:)`` as soon as its header arrives, so a
/// hostile length never makes the decoder buffer.
public struct WebSocketFrameDecoder: Sendable {
    public let maxPayloadSize: Int
    private var queue = ByteQueue()

    public init(maxPayloadSize: Int = 64 * 1024) {
        self.maxPayloadSize = maxPayloadSize
    }

    public mutating func feed<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        queue.append(contentsOf: bytes)
    }

    /// The next complete frame (payload unmasked), or nil if more bytes are needed.
    public mutating func next() throws(WebSocketError) -> WebSocketFrame? {
        guard let header = try WebSocketFrameHeader.parse(queue) else { return nil }
        guard header.payloadLength <= maxPayloadSize else { throw .frameTooLarge(header.payloadLength) }
        guard queue.count >= header.headerLength + header.payloadLength else { return nil }
        queue.skip(header.headerLength)
        var payload = queue.read(header.payloadLength) ?? []
        if let key = header.maskKey { WebSocketFrame.applyMask(key, to: &payload) }
        return WebSocketFrame(fin: header.fin, rsv: header.rsv, opcode: header.opcode, maskKey: header.maskKey, payload: payload)
    }
}

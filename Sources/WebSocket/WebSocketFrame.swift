/// A frame opcode (RFC 6455 §5.2). Reserved values are not representable:
/// the decoder rejects them.
public enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Control frames (close, ping, pong) have the high opcode bit set.
    public var isControl: Bool { rawValue & 0x8 != 0 }
}

/// One WebSocket frame (RFC 6455 §5.2). A decoded frame's payload is already
/// unmasked; `maskKey` records the key it arrived with.
public struct WebSocketFrame: Equatable, Sendable {
    public var fin: Bool
    /// RSV1–3 as the low three bits (RSV1 = 0b100).
    public var rsv: UInt8
    public var opcode: WebSocketOpcode
    /// The masking key; clients must mask, servers must not (§5.1).
    public var maskKey: UInt32?
    public var payload: [UInt8]

    public init(fin: Bool = true, rsv: UInt8 = 0, opcode: WebSocketOpcode, maskKey: UInt32? = nil, payload: [UInt8] = []) {
        self.fin = fin
        self.rsv = rsv
        self.opcode = opcode
        self.maskKey = maskKey
        self.payload = payload
    }

    /// The frame as it goes on the wire (masked if `maskKey` is set).
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        Self.encode(fin: fin, rsv: rsv, opcode: opcode, maskKey: maskKey, payload: payload, into: &out)
        return out
    }

    /// Appends a frame to `out` without building a `WebSocketFrame` first.
    /// The length uses the shortest form, as §5.2 requires of senders.
    public static func encode<C: Collection>(
        fin: Bool = true, rsv: UInt8 = 0, opcode: WebSocketOpcode, maskKey: UInt32?, payload: C, into out: inout [UInt8]
    ) where C.Element == UInt8 {
        let length = payload.count
        out.reserveCapacity(out.count + 14 + length)
        out.append((fin ? 0x80 : 0) | (rsv & 0x7) << 4 | opcode.rawValue)
        let maskBit: UInt8 = maskKey == nil ? 0 : 0x80
        if length <= 125 {
            out.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            out.append(maskBit | 126)
            out.append(UInt8(truncatingIfNeeded: length >> 8))
            out.append(UInt8(truncatingIfNeeded: length))
        } else {
            out.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: UInt64(length) >> UInt64(shift)))
            }
        }
        guard let key = maskKey else {
            out.append(contentsOf: payload)
            return
        }
        for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: key >> UInt32(shift))) }
        let start = out.count
        out.append(contentsOf: payload)
        applyMask(key, to: &out, from: start)
    }

    /// XORs `bytes[from...]` with the 4-byte key (§5.3); masking and unmasking
    /// are the same operation.
    static func applyMask(_ key: UInt32, to bytes: inout [UInt8], from start: Int = 0) {
        let k: (UInt8, UInt8, UInt8, UInt8) = (
            UInt8(truncatingIfNeeded: key >> 24), UInt8(truncatingIfNeeded: key >> 16),
            UInt8(truncatingIfNeeded: key >> 8), UInt8(truncatingIfNeeded: key))
        bytes.withUnsafeMutableBufferPointer { p in
            var i = max(0, start)
            var j = 0
            while i + 3 < p.count {
                p[i] ^= k.0
                p[i + 1] ^= k.1
                p[i + 2] ^= k.2
                p[i + 3] ^= k.3
                i += 4
                j += 4
            }
            while i < p.count {
                switch j & 3 {
                case 0: p[i] ^= k.0
                case 1: p[i] ^= k.1
                case 2: p[i] ^= k.2
                default: p[i] ^= k.3
                }
                i += 1
                j += 1
            }
        }
    }
}

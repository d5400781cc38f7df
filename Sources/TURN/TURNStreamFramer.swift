import STUN

/// Splits the byte stream from a TURN server over TCP into whole STUN
/// messages and ChannelData frames (RFC 8656 §12.5, RFC 8489 §6.2.2).
///
/// TCP has no message boundaries: a read may hold half a message or
/// several. The first two bits of each frame tell the two kinds apart
/// (00 STUN, 01 ChannelData), and each carries its own length. Anything
/// else means the stream has lost sync, which cannot be repaired: the
/// framer then reports `isCorrupt` and yields nothing more.
public struct TURNStreamFramer: Sendable {
    public enum Frame: Hashable, Sendable {
        /// A whole STUN message, header included.
        case stun([UInt8])
        /// A whole ChannelData frame, padding included.
        case channelData([UInt8])
    }

    private var buffer: [UInt8] = []
    /// Start of the unread bytes; the consumed prefix is dropped in bulk
    /// so that many small frames do not cost a copy each.
    private var start = 0
    public private(set) var isCorrupt = false

    public init() {}

    /// Bytes received but not yet returned as a frame. Bounded by the
    /// largest frame (64 KiB + headers) plus one read.
    public var bufferedCount: Int { buffer.count - start }

    public mutating func append(_ bytes: [UInt8]) {
        guard !isCorrupt else { return }
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, or `nil` when more bytes are needed (or
    /// the stream is corrupt).
    public mutating func next() -> Frame? {
        guard !isCorrupt, start < buffer.count else { return nil }
        let first = buffer[start]
        let length: Int
        let isSTUN: Bool
        switch first >> 6 {
        case 0b00:
            guard bufferedCount >= 8 else { return nil }
            guard let total = STUNMessage.frameLength(of: buffer[start...]) else {
                isCorrupt = true
                return nil
            }
            length = total
            isSTUN = true
        case 0b01:
            guard bufferedCount >= 4 else { return nil }
            let dataLength = Int(buffer[start + 2]) << 8 | Int(buffer[start + 3])
            length = ChannelData.streamFrameLength(dataLength: dataLength)
            isSTUN = false
        default:
            isCorrupt = true
            return nil
        }
        guard bufferedCount >= length else { return nil }
        let frame = Array(buffer[start..<start + length])
        start += length
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        return isSTUN ? .stun(frame) : .channelData(frame)
    }
}

import Wire

/// A ChannelData message (RFC 8656 §12.4): application data for a bound
/// channel behind a 4-byte header instead of a 36-byte Send indication.
///
/// ```
/// | channel number (16) | length (16) | application data ... | padding |
/// ```
///
/// The length counts the data only. Over TCP the message is padded to a
/// multiple of four bytes, which the length does not include, so a receiver
/// can find the next frame (§12.5); over UDP padding is optional and is
/// simply ignored when present.
public struct ChannelData: Hashable, Sendable {
    /// Channel numbers a client may bind (§12): 0x4000 through 0x4FFF;
    /// 0x5000–0x7FFF are reserved.
    public static let validNumbers: ClosedRange<UInt16> = 0x4000...0x4FFF

    public let number: UInt16
    public let data: [UInt8]

    public init(number: UInt16, data: [UInt8]) {
        self.number = number
        self.data = data
    }

    /// The two leading bits 01 mark ChannelData; STUN messages start with
    /// 00 (RFC 7983 demultiplexing on the first byte).
    public static func startsChannelData(_ firstByte: UInt8) -> Bool {
        firstByte & 0xC0 == 0x40
    }

    /// The encoded frame. Data past 65535 bytes cannot be described by the
    /// length field and is cut off, so the output is always well formed.
    public func encoded(padded: Bool) -> [UInt8] {
        let payload = data.prefix(Int(UInt16.max))
        var writer = ByteWriter(capacity: 4 + payload.count + 3)
        writer.writeU16(number)
        writer.writeU16(UInt16(payload.count))
        writer.write(payload)
        if padded { writer.pad(to: 4) }
        return writer.bytes
    }

    /// Decodes one frame from the start of `bytes`. Bytes past the data
    /// (padding, or UDP trailers) are ignored. `nil` when the header is
    /// short, the number is outside 0x4000–0x4FFF or the data is truncated.
    public static func decode(_ bytes: [UInt8]) -> ChannelData? {
        var reader = ByteReader(bytes)
        guard let number = reader.readU16(), validNumbers.contains(number),
              let length = reader.readU16(), let data = reader.readBytes(Int(length))
        else { return nil }
        return ChannelData(number: number, data: data)
    }

    /// The size a frame whose header is `length` takes on a byte stream,
    /// padding included (§12.5).
    static func streamFrameLength(dataLength: Int) -> Int {
        4 + (dataLength + 3) / 4 * 4
    }
}

import Wire

/// An SCTP packet: common header plus chunks (RFC 9260 §3.1). Over DTLS
/// (RFC 8261) each DTLS record carries exactly one of these, no IP/UDP.
public struct SCTPPacket: Equatable, Sendable {
    public static let commonHeaderSize = 12

    public var sourcePort: UInt16
    public var destinationPort: UInt16
    public var verificationTag: UInt32
    public var chunks: [SCTPChunk]

    public init(sourcePort: UInt16, destinationPort: UInt16, verificationTag: UInt32, chunks: [SCTPChunk]) {
        self.sourcePort = sourcePort
        self.destinationPort = destinationPort
        self.verificationTag = verificationTag
        self.chunks = chunks
    }

    /// Decodes and checks the CRC32c. Returns nil for anything malformed:
    /// a bad checksum, a chunk whose length runs past the packet, or a known
    /// chunk whose body is inconsistent. The whole packet is then dropped,
    /// as RFC 9260 §6.8 asks for a bad checksum.
    public static func decode(_ bytes: [UInt8], verifyChecksum: Bool = true) -> SCTPPacket? {
        var r = ByteReader(bytes)
        guard let src = r.readU16(), let dst = r.readU16(), let tag = r.readU32(), let sum = r.readU32() else { return nil }
        if verifyChecksum {
            // The CRC is stored least-significant byte first (RFC 9260 App. B).
            guard sum.byteSwapped == CRC32c.packetChecksum(bytes) else { return nil }
        }
        var chunks: [SCTPChunk] = []
        while r.remaining >= 4 {
            guard let type = r.readU8(), let flags = r.readU8(), let length = r.readU16(),
                  length >= 4, let body = r.readSlice(Int(length) - 4) else { return nil }
            // A final chunk may omit its padding; tolerate that.
            _ = r.skip(min(r.remaining, (4 - Int(length) % 4) % 4))
            guard let chunk = ChunkDecoder.decode(type: type, flags: flags, body: body) else { return nil }
            chunks.append(chunk)
        }
        return SCTPPacket(sourcePort: src, destinationPort: dst, verificationTag: tag, chunks: chunks)
    }

    /// Encodes the packet with its CRC32c.
    public func encode() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(Self.commonHeaderSize + chunks.reduce(0) { $0 + ChunkEncoder.encodedSize($1) })
        Self.writeHeader(into: &out, sourcePort: sourcePort, destinationPort: destinationPort, verificationTag: verificationTag)
        for c in chunks { ChunkEncoder.encode(c, into: &out) }
        Self.finalize(&out)
        return out
    }

    static func writeHeader(into out: inout [UInt8], sourcePort: UInt16, destinationPort: UInt16, verificationTag: UInt32) {
        out.appendU16(sourcePort)
        out.appendU16(destinationPort)
        out.appendU32(verificationTag)
        out.appendU32(0)
    }

    /// Fills in the checksum of a fully written packet.
    static func finalize(_ out: inout [UInt8]) {
        let crc = CRC32c.packetChecksum(out)
        out[8] = UInt8(truncatingIfNeeded: crc)
        out[9] = UInt8(truncatingIfNeeded: crc >> 8)
        out[10] = UInt8(truncatingIfNeeded: crc >> 16)
        out[11] = UInt8(truncatingIfNeeded: crc >> 24)
    }
}

extension Array where Element == UInt8 {
    @inline(__always) mutating func appendU16(_ v: UInt16) {
        append(UInt8(truncatingIfNeeded: v >> 8))
        append(UInt8(truncatingIfNeeded: v))
    }

    @inline(__always) mutating func appendU32(_ v: UInt32) {
        append(UInt8(truncatingIfNeeded: v >> 24))
        append(UInt8(truncatingIfNeeded: v >> 16))
        append(UInt8(truncatingIfNeeded: v >> 8))
        append(UInt8(truncatingIfNeeded: v))
    }

    @inline(__always) mutating func padTo4() {
        while count % 4 != 0 { append(0) }
    }
}

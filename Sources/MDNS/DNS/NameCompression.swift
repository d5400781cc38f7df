import Wire

/// Reading and writing names with compression pointers (RFC 1035 §4.1.4).
enum NameCompression {
    /// Reads a name at the reader's offset. A pointer must point strictly
    /// before every byte of the name read so far (so a chain of them only
    /// goes backwards and cannot loop), at
    /// most 127 pointers are followed, and the name stays within 255 bytes.
    static func read(_ reader: inout ByteReader, message: [UInt8]) throws(MDNSError) -> DNSName {
        var labels: [[UInt8]] = []
        var length = 1
        var position = reader.offset
        var jumped = false
        var jumps = 0
        var limit = reader.offset
        while true {
            guard position < message.count else { throw .truncated }
            let byte = message[position]
            switch byte & 0xC0 {
            case 0x00:
                if byte == 0 {
                    if !jumped { _ = reader.skip(position + 1 - reader.offset) }
                    guard let name = DNSName(labels: labels) else { throw .badName }
                    return name
                }
                let count = Int(byte)
                guard position + 1 + count <= message.count else { throw .truncated }
                length += count + 1
                guard length <= DNSName.maxWireLength else { throw .badName }
                labels.append(Array(message[position + 1 ..< position + 1 + count]))
                position += 1 + count
            case 0xC0:
                guard position + 1 < message.count else { throw .truncated }
                let target = Int(byte & 0x3F) << 8 | Int(message[position + 1])
                guard target < limit, jumps < 127 else { throw .badPointer }
                limit = target
                if !jumped { _ = reader.skip(position + 2 - reader.offset) }
                jumped = true
                jumps += 1
                position = target
            default:
                throw .badName  // 0x40 / 0x80: extended label types, not used in DNS
            }
        }
    }

    /// Suffixes already written (lower-cased labels → offset), for pointers.
    struct Table {
        var offsets: [[[UInt8]]: Int] = [:]
    }

    static func write(_ name: DNSName, to writer: inout ByteWriter, table: inout Table?) {
        let folded = name.folded
        for index in folded.indices {
            let suffix = Array(folded[index...])
            if let offset = table?.offsets[suffix] {
                writer.writeU16(0xC000 | UInt16(offset))
                return
            }
            if writer.count < 0x4000 { table?.offsets[suffix] = writer.count }
            writer.writeU8(UInt8(name.labels[index].count))
            writer.write(name.labels[index])
        }
        writer.writeU8(0)
    }
}

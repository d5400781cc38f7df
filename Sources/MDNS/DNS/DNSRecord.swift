import Wire

/// One resource record. `cacheFlush` is mDNS's top bit of the class: this
/// record replaces every other of its name and type (RFC 6762 §10.2).
public struct DNSRecord: Hashable, Sendable, CustomStringConvertible {
    public enum Data: Hashable, Sendable {
        case a([UInt8])
        case aaaa([UInt8])
        case ptr(DNSName)
        case srv(priority: UInt16, weight: UInt16, port: UInt16, target: DNSName)
        /// Character strings (RFC 6763 §6: `key=value`, each at most 255 bytes).
        case txt([[UInt8]])
        case other(DNSRecordType, [UInt8])
    }

    public var name: DNSName
    public var data: Data
    public var ttl: UInt32
    public var cacheFlush: Bool
    public var recordClass: UInt16

    public init(name: DNSName, data: Data, ttl: UInt32, cacheFlush: Bool = false, recordClass: UInt16 = DNSClass.internet) {
        self.name = name
        self.data = data
        self.ttl = ttl
        self.cacheFlush = cacheFlush
        self.recordClass = recordClass
    }

    public var type: DNSRecordType {
        switch data {
        case .a: return .a
        case .aaaa: return .aaaa
        case .ptr: return .ptr
        case .srv: return .srv
        case .txt: return .txt
        case .other(let type, _): return type
        }
    }

    /// Same record, whatever the TTL and cache-flush bit (known answers, goodbyes).
    public func isSameRecord(as other: DNSRecord) -> Bool {
        name == other.name && recordClass == other.recordClass && data == other.data
    }

    public var description: String { "\(name) \(type) \(data) ttl=\(ttl)\(cacheFlush ? " flush" : "")" }

    /// The rdata uncompressed with names lower-cased: what RFC 6762 §8.2
    /// compares, byte by byte, to break a tie between simultaneous probes.
    var canonicalData: [UInt8] {
        var writer = ByteWriter()
        var none: NameCompression.Table? = nil
        writeData(to: &writer, table: &none)
        return writer.bytes
    }

    func writeData(to writer: inout ByteWriter, table: inout NameCompression.Table?) {
        switch data {
        case .a(let bytes), .aaaa(let bytes), .other(_, let bytes):
            writer.write(bytes)
        case .ptr(let target):
            NameCompression.write(target, to: &writer, table: &table)
        case .srv(let priority, let weight, let port, let target):
            writer.writeU16(priority)
            writer.writeU16(weight)
            writer.writeU16(port)
            // RFC 2782 forbids compressing the target; mDNS allows it, but old resolvers do not.
            var none: NameCompression.Table? = nil
            NameCompression.write(target, to: &writer, table: &none)
        case .txt(let strings):
            // An empty TXT record is one empty string (RFC 6763 §6.1).
            if strings.isEmpty { writer.writeU8(0) }
            for string in strings {
                writer.writeU8(UInt8(min(string.count, 255)))
                writer.write(string.prefix(255))
            }
        }
    }

    func write(to writer: inout ByteWriter, table: inout NameCompression.Table?) {
        NameCompression.write(name, to: &writer, table: &table)
        writer.writeU16(type.rawValue)
        writer.writeU16(recordClass | (cacheFlush ? DNSClass.topBit : 0))
        writer.writeU32(ttl)
        let lengthAt = writer.count
        writer.writeU16(0)
        writeData(to: &writer, table: &table)
        writer.setU16(UInt16(writer.count - lengthAt - 2), at: lengthAt)
    }

    static func read(_ reader: inout ByteReader, message: [UInt8]) throws(MDNSError) -> DNSRecord {
        let name = try NameCompression.read(&reader, message: message)
        guard let type = reader.readU16(), let rawClass = reader.readU16(), let ttl = reader.readU32(),
              let length = reader.readU16(), var rdata = reader.readSlice(Int(length)) else { throw .truncated }
        let data: Data
        switch DNSRecordType(rawValue: type) {
        case .a:
            guard length == 4, let bytes = rdata.readBytes(4) else { throw .badRecordData }
            data = .a(bytes)
        case .aaaa:
            guard length == 16, let bytes = rdata.readBytes(16) else { throw .badRecordData }
            data = .aaaa(bytes)
        case .ptr:
            data = .ptr(try NameCompression.read(&rdata, message: message))
            guard rdata.isAtEnd else { throw .badRecordData }
        case .srv:
            guard let priority = rdata.readU16(), let weight = rdata.readU16(), let port = rdata.readU16() else { throw .badRecordData }
            let target = try NameCompression.read(&rdata, message: message)
            guard rdata.isAtEnd else { throw .badRecordData }
            data = .srv(priority: priority, weight: weight, port: port, target: target)
        case .txt:
            var strings: [[UInt8]] = []
            while !rdata.isAtEnd {
                guard let count = rdata.readU8(), let string = rdata.readBytes(Int(count)) else { throw .badRecordData }
                if !string.isEmpty { strings.append(string) }
            }
            data = .txt(strings)
        default:
            data = .other(DNSRecordType(rawValue: type), Array(rdata.rest()))
        }
        return DNSRecord(name: name, data: data, ttl: ttl, cacheFlush: rawClass & DNSClass.topBit != 0,
                         recordClass: rawClass & ~DNSClass.topBit)
    }
}

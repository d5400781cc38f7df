import Wire

/// A question; `unicastResponse` is mDNS's QU bit (RFC 6762 §5.4).
public struct DNSQuestion: Hashable, Sendable {
    public var name: DNSName
    public var type: DNSRecordType
    public var unicastResponse: Bool
    public var questionClass: UInt16

    public init(name: DNSName, type: DNSRecordType, unicastResponse: Bool = false, questionClass: UInt16 = DNSClass.internet) {
        self.name = name
        self.type = type
        self.unicastResponse = unicastResponse
        self.questionClass = questionClass
    }

    /// Whether this question asks for `record`.
    func matches(_ record: DNSRecord) -> Bool {
        name == record.name && type.matches(record.type)
            && (questionClass == DNSClass.any || questionClass == record.recordClass)
    }
}

/// A DNS message (RFC 1035 §4.1) as mDNS uses it: queries carry known
/// answers in the answer section and probes their proposed records in the
/// authority section (RFC 6762 §7.1, §8.2).
public struct DNSMessage: Equatable, Sendable {
    public var id: UInt16 = 0
    public var flags: UInt16 = 0
    public var questions: [DNSQuestion] = []
    public var answers: [DNSRecord] = []
    public var authorities: [DNSRecord] = []
    public var additionals: [DNSRecord] = []

    public init(id: UInt16 = 0, flags: UInt16 = 0, questions: [DNSQuestion] = [], answers: [DNSRecord] = [],
                authorities: [DNSRecord] = [], additionals: [DNSRecord] = []) {
        self.id = id
        self.flags = flags
        self.questions = questions
        self.answers = answers
        self.authorities = authorities
        self.additionals = additionals
    }

    /// QR = 1, AA = 1: how every mDNS response is flagged (RFC 6762 §18.2, §18.4).
    public static let responseFlags: UInt16 = 0x8400

    public var isResponse: Bool { flags & 0x8000 != 0 }
    var opcode: UInt16 { (flags >> 11) & 0xF }
    var responseCode: UInt16 { flags & 0xF }
    public var isTruncated: Bool { flags & 0x0200 != 0 }

    /// The wire form, with name compression.
    public func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: 512)
        writer.writeU16(id)
        writer.writeU16(flags)
        for count in [questions.count, answers.count, authorities.count, additionals.count] {
            writer.writeU16(UInt16(min(count, 0xFFFF)))
        }
        var table: NameCompression.Table? = NameCompression.Table()
        for question in questions {
            NameCompression.write(question.name, to: &writer, table: &table)
            writer.writeU16(question.type.rawValue)
            writer.writeU16(question.questionClass | (question.unicastResponse ? DNSClass.topBit : 0))
        }
        for record in answers + authorities + additionals { record.write(to: &writer, table: &table) }
        return writer.bytes
    }

    /// Parses untrusted bytes; throws on anything malformed, never traps.
    public init(decoding bytes: [UInt8]) throws(MDNSError) {
        var reader = ByteReader(bytes)
        guard let id = reader.readU16(), let flags = reader.readU16(), let qd = reader.readU16(),
              let an = reader.readU16(), let ns = reader.readU16(), let ar = reader.readU16() else { throw .truncated }
        // Each question takes at least 5 bytes and each record 11: a count
        // the message cannot hold is rejected before anything is allocated.
        guard Int(qd) * 5 + (Int(an) + Int(ns) + Int(ar)) * 11 <= reader.remaining else { throw .badCounts }
        self.id = id
        self.flags = flags
        for _ in 0..<qd {
            let name = try NameCompression.read(&reader, message: bytes)
            guard let type = reader.readU16(), let rawClass = reader.readU16() else { throw .truncated }
            questions.append(DNSQuestion(name: name, type: DNSRecordType(rawValue: type),
                                         unicastResponse: rawClass & DNSClass.topBit != 0,
                                         questionClass: rawClass & ~DNSClass.topBit))
        }
        for _ in 0..<an { answers.append(try DNSRecord.read(&reader, message: bytes)) }
        for _ in 0..<ns { authorities.append(try DNSRecord.read(&reader, message: bytes)) }
        for _ in 0..<ar { additionals.append(try DNSRecord.read(&reader, message: bytes)) }
    }
}

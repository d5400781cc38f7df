import Wire

/// A STUN message (RFC 8489): a type (method and class), a 96-bit
/// transaction id and an ordered list of attributes.
///
/// The STUN module is a sans-IO implementation of Session Traversal
/// Utilities for NAT: this codec, message integrity and fingerprints
/// (`STUNKey`, `verifyIntegrity(of:key:)`), client transactions with
/// retransmission (`STUNTransaction`, `STUNClient`) and the server's Binding
/// responder (`STUNResponder`). It never touches sockets or clocks: callers
/// pass datagrams, addresses and the current time in, and get bytes out.
///
/// Decoding is defensive: every read is bounds-checked, and any input,
/// however hostile, yields either a message or a `STUNError`.
public struct STUNMessage: Hashable, Sendable {
    public var type: STUNMessageType
    public var transactionID: STUNTransactionID
    public var attributes: [STUNAttribute]

    public init(type: STUNMessageType, transactionID: STUNTransactionID, attributes: [STUNAttribute] = []) {
        self.type = type
        self.transactionID = transactionID
        self.attributes = attributes
    }

    /// A cheap test for demultiplexing (RFC 7983): leading zero bits, magic
    /// cookie and a length that matches the datagram.
    public static func isSTUN(_ bytes: [UInt8]) -> Bool {
        STUNFrame.header(bytes) != nil
    }

    /// The total size of the message whose first bytes are `prefix`, for
    /// framing STUN over a byte stream (TCP/TLS, RFC 8489 §6.2.2); `nil` if
    /// fewer than 8 bytes are available or they cannot start a STUN message.
    public static func frameLength(of prefix: ArraySlice<UInt8>) -> Int? {
        var reader = ByteReader(Array(prefix.prefix(8)))
        guard let rawType = reader.readU16(), STUNMessageType(rawValue: rawType) != nil,
              let length = reader.readU16(), length % 4 == 0,
              reader.readU32() == stunMagicCookie
        else { return nil }
        return stunHeaderLength + Int(length)
    }

    /// Decodes a whole datagram. Attributes that RFC 8489 says to ignore
    /// (after MESSAGE-INTEGRITY or FINGERPRINT) are dropped; attributes
    /// without a typed case are kept as `.other`. Integrity and fingerprint
    /// are not checked here: use `verifyIntegrity(of:key:)` and
    /// `verifyFingerprint(of:)` on the same bytes.
    public static func decode(_ bytes: [UInt8]) throws(STUNError) -> STUNMessage {
        let frame = try STUNFrame.parse(bytes)
        var attributes: [STUNAttribute] = []
        attributes.reserveCapacity(frame.attributes.count)
        for raw in frame.effectiveAttributes {
            guard let attribute = STUNAttribute.decode(type: raw.type, value: raw.value, transactionID: frame.transactionID)
            else { throw .malformedAttribute(raw.type) }
            attributes.append(attribute)
        }
        return STUNMessage(type: frame.type, transactionID: frame.transactionID, attributes: attributes)
    }

    /// Comprehension-required attributes (type < 0x8000) this module does
    /// not understand, without duplicates, in order of appearance: what a
    /// server lists in UNKNOWN-ATTRIBUTES with a 420 answer to a request,
    /// and why a client discards a response (RFC 8489 §6.3).
    public var unknownComprehensionRequiredAttributes: [STUNAttributeType] {
        var seen: Set<STUNAttributeType> = []
        var unknown: [STUNAttributeType] = []
        for case .other(let type, _) in attributes where type.isComprehensionRequired {
            if seen.insert(type).inserted { unknown.append(type) }
        }
        return unknown
    }

    /// Largest value of the 16-bit message length field.
    static let maximumBodyLength = 0xFFFF & ~3

    /// Encodes the message. Attributes are written in order, padded to four
    /// bytes with `paddingByte` (RFC 8489 §14 lets padding be any value;
    /// RFC 5769's vectors use spaces). Then, if given, MESSAGE-INTEGRITY and
    /// MESSAGE-INTEGRITY-SHA256 are computed and appended, and FINGERPRINT
    /// last, each over the message with its length field covering the
    /// attribute being added (§14.5–14.7).
    ///
    /// Attributes that would push the message past the 64 KiB the length
    /// field can describe are left out, so the output is always well formed.
    public func encoded(
        integrity: STUNKey? = nil,
        integritySHA256: STUNKey? = nil,
        fingerprint: Bool = false,
        paddingByte: UInt8 = 0
    ) -> [UInt8] {
        var writer = ByteWriter(capacity: 128)
        writer.writeU16(type.rawValue)
        writer.writeU16(0)
        writer.writeU32(stunMagicCookie)
        writer.write(transactionID.bytes)
        // Room kept for the trailing integrity and fingerprint attributes.
        let reserved = (integrity == nil ? 0 : 24) + (integritySHA256 == nil ? 0 : 36) + (fingerprint ? 8 : 0)
        for attribute in attributes {
            let value = attribute.encodedValue(transactionID: transactionID)
            let size = 4 + value.count + padding(value.count)
            guard writer.count - stunHeaderLength + size + reserved <= Self.maximumBodyLength else { continue }
            Self.append(attribute.type, value, to: &writer, paddingByte: paddingByte)
        }
        if let key = integrity {
            Self.appendMAC(.messageIntegrity, .sha1, key: key, to: &writer)
        }
        if let key = integritySHA256 {
            Self.appendMAC(.messageIntegritySHA256, .sha256, key: key, to: &writer)
        }
        if fingerprint {
            writer.setU16(UInt16(truncatingIfNeeded: writer.count - stunHeaderLength + 8), at: 2)
            let crc = CRC32.checksum(writer.bytes) ^ fingerprintXOR
            let value = STUNAttribute.fingerprint(crc).encodedValue(transactionID: transactionID)
            Self.append(.fingerprint, value, to: &writer, paddingByte: 0)
        }
        writer.setU16(UInt16(truncatingIfNeeded: writer.count - stunHeaderLength), at: 2)
        return writer.bytes
    }

    private static func append(_ type: STUNAttributeType, _ value: [UInt8], to writer: inout ByteWriter, paddingByte: UInt8) {
        writer.writeU16(type.rawValue)
        writer.writeU16(UInt16(truncatingIfNeeded: value.count))
        writer.write(value)
        for _ in 0..<padding(value.count) { writer.writeU8(paddingByte) }
    }

    /// The MAC covers everything before it, with the header length already
    /// counting the MAC attribute itself (RFC 8489 §14.5). If OpenSSL fails,
    /// zeros go out and the peer rejects the message, never trusting it.
    private static func appendMAC(
        _ type: STUNAttributeType, _ algorithm: Digest.Algorithm, key: STUNKey, to writer: inout ByteWriter
    ) {
        writer.setU16(UInt16(truncatingIfNeeded: writer.count - stunHeaderLength + 4 + algorithm.length), at: 2)
        let mac = Digest.hmac(algorithm, key: key.bytes, data: writer.bytes)
            ?? [UInt8](repeating: 0, count: algorithm.length)
        append(type, mac, to: &writer, paddingByte: 0)
    }
}

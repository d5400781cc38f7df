/// Why bytes are not a DNS message, or why the mDNS core refused something.
public enum MDNSError: Error, Equatable, Sendable {
    case truncated
    /// A label of an unknown type, or a name over 255 bytes.
    case badName
    /// A compression pointer that does not point strictly backwards.
    case badPointer
    /// Resource data that does not fit its type (an A record of 3 bytes).
    case badRecordData
    /// More sections than the message has room for.
    case badCounts
}

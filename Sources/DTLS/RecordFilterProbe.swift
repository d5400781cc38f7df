/// ``RecordFraming/filter(_:policy:)`` for the fuzz target (Sources/Fuzzing),
/// which feeds it arbitrary datagrams. An SPI, not part of the module's API:
/// the endpoint applies the filter itself.
@_spi(Fuzzing) public enum RecordFilterProbe {
    /// `handshake`: epochs 0 and 1 are in use; otherwise only 1.
    public static func filter(_ datagram: [UInt8], handshake: Bool, minimumEncryptedLength: Int) -> [UInt8]? {
        RecordFraming.filter(
            datagram, policy: RecordFraming.Policy(epochs: handshake ? 0...1 : 1...1, minimumEncryptedLength: minimumEncryptedLength))
    }
}

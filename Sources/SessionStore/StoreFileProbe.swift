import Wire

/// The session-store file's decoders for the fuzz target (Sources/Fuzzing):
/// the header that is read before any key exists, and the contents that
/// decryption yields. An SPI, not part of the module's API (``SessionStore``
/// opens files itself); the key derivation between the two is left out so
/// the fuzzer spends its time on parsing.
@_spi(Fuzzing) public enum StoreFileProbe {
    /// Parses the header at the start of `file`; nil when it is refused.
    public static func headerCiphertextLength(_ file: [UInt8]) -> Int? {
        (try? StoreHeader.parse(file)).map { Int($0.ciphertextLength) }
    }

    /// The contents a decrypted payload holds, and the payload they seal
    /// again (which must decode to the same contents).
    public static func contents(_ payload: JSON) -> (StoreContents, JSON)? {
        StoreContents(json: payload).map { ($0, $0.json) }
    }
}

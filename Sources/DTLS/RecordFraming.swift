/// A cheap check of DTLS record framing (RFC 6347 §4.1) before a datagram
/// reaches OpenSSL.
///
/// RFC 6347 §4.1.2.7: invalid records SHOULD be silently discarded, so that
/// nobody who can spoof a datagram onto the 5-tuple can end the association.
/// OpenSSL 3.0 does not always manage that on its own: an epoch-0 alert whose
/// length is not 2 aborts a handshake, a record longer than its buffers is a
/// fatal record_overflow, and an AEAD record shorter than its explicit nonce
/// plus tag (24 bytes for AES-GCM) is a fatal internal_error, whose error it
/// even pops off the queue. Records that cannot come from a real peer are
/// therefore removed here, one by one, so that a genuine record in the same
/// datagram still gets through.
enum RecordFraming {
    static let headerLength = 13
    /// Largest record body OpenSSL accepts (SSL3_RT_MAX_ENCRYPTED_LENGTH
    /// without compression: 2^14 plaintext plus its worst-case expansion).
    static let maximumLength = 16_384 + 320

    /// Which records the endpoint can use in its current state.
    struct Policy: Equatable {
        /// Epochs in use: 0 (plaintext) and 1 during the handshake, only 1
        /// afterwards (no renegotiation, so never 2).
        var epochs: ClosedRange<Int>
        /// The smallest body an encrypted (epoch ≥ 1) record can have with
        /// the suite in use: explicit nonce plus tag, or IV plus one block.
        var minimumEncryptedLength: Int
    }

    /// `datagram` with every implausible record removed (the same array when
    /// all pass), or nil when nothing usable is left. A datagram whose
    /// framing breaks (a header cut short, a length past the end) is dropped
    /// whole: a real peer never sends one.
    static func filter(_ datagram: [UInt8], policy: Policy) -> [UInt8]? {
        var kept: [Range<Int>] = []
        var offset = 0
        while offset < datagram.count {
            guard datagram.count - offset >= headerLength else { return nil }
            let length = Int(datagram[offset + 11]) << 8 | Int(datagram[offset + 12])
            guard length <= datagram.count - offset - headerLength else { return nil }
            let record = offset..<(offset + headerLength + length)
            if isPlausible(header: datagram[record.lowerBound...], length: length, policy: policy) { kept.append(record) }
            offset = record.upperBound
        }
        if kept.count == 1, kept[0] == datagram.indices { return datagram }
        if kept.isEmpty { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(datagram.count)
        for record in kept { result.append(contentsOf: datagram[record]) }
        return result
    }

    private static func isPlausible(header: ArraySlice<UInt8>, length: Int, policy: Policy) -> Bool {
        let start = header.startIndex
        let contentType = header[start]
        // change_cipher_spec(20), alert(21), handshake(22), application_data(23)
        guard (20...23).contains(contentType) else { return false }
        // DTLS versions are 0xFEFF (1.0) and 0xFEFD (1.2); 1.0 appears in the
        // record layer of some ClientHellos.
        guard header[start + 1] == 0xFE, header[start + 2] == 0xFF || header[start + 2] == 0xFD else { return false }
        let epoch = Int(header[start + 3]) << 8 | Int(header[start + 4])
        guard policy.epochs.contains(epoch), length <= maximumLength else { return false }
        if epoch == 0 {
            // Plaintext alerts are exactly level + description, a plaintext
            // ChangeCipherSpec is one byte, and application data is never
            // sent before keys exist.
            if contentType == 21, length != 2 { return false }
            if contentType == 20, length != 1 { return false }
            if contentType == 23 { return false }
            return true
        }
        return length >= policy.minimumEncryptedLength
    }
}

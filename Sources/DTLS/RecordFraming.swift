/// A cheap check of DTLS record framing (RFC 6347 §4.1) before a datagram
/// reaches OpenSSL.
///
/// Records in epoch 0 are unauthenticated, and OpenSSL treats some malformed
/// ones (an alert whose length is not 2, say) as fatal to the handshake. A
/// datagram whose framing is wrong cannot come from a real peer, so it is
/// dropped here, as RFC 6347 §4.1.2.7 allows for invalid records, instead of
/// letting stray or injected bytes abort the association.
enum RecordFraming {
    static let headerLength = 13

    static func isPlausible(_ datagram: [UInt8]) -> Bool {
        var offset = 0
        var records = 0
        while offset < datagram.count {
            guard datagram.count - offset >= headerLength else { return false }
            let contentType = datagram[offset]
            // change_cipher_spec(20), alert(21), handshake(22), application_data(23)
            guard (20...23).contains(contentType) else { return false }
            // DTLS versions are 0xFEFF (1.0) and 0xFEFD (1.2); 1.0 appears in the
            // record layer of some ClientHellos.
            guard datagram[offset + 1] == 0xFE, datagram[offset + 2] == 0xFF || datagram[offset + 2] == 0xFD else { return false }
            let epoch = Int(datagram[offset + 3]) << 8 | Int(datagram[offset + 4])
            let length = Int(datagram[offset + 11]) << 8 | Int(datagram[offset + 12])
            guard length <= datagram.count - offset - headerLength else { return false }
            if epoch == 0 {
                // Plaintext alerts are exactly level + description, a plaintext
                // ChangeCipherSpec is one byte, and application data is never
                // sent before keys exist.
                if contentType == 21, length != 2 { return false }
                if contentType == 20, length != 1 { return false }
                if contentType == 23 { return false }
            }
            offset += headerLength + length
            records += 1
        }
        return records > 0
    }
}

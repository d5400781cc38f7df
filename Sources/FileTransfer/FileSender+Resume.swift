import Wire

/// A resume (FileTransfer.md): the receiver says how many bytes of the file
/// it has and their SHA-256; the sender hashes its own first as many bytes
/// and sends only the rest when the two agree (else everything, from 0).
/// With read-ahead the hashing runs on `ReadAhead`'s thread, so a
/// gigabyte-long prefix never holds the loop: `pollMessage` answers nil
/// (`isWaitingForDisk`) until the thread is done, and its `wake` says when.
extension FileSender {
    func startProof(offset: UInt64, prefixHash: [UInt8]) {
        guard readsAhead else { return proveResume(offset: offset, prefixHash: prefixHash) }
        let reading = ReadAhead(source: source, entry: entryIndex, offset: 0, size: offset, chunkSize: chunkSize, hasher: SHA256(), wake: wake)
        proof = (PrefixProof(reading: reading), offset, prefixHash)
    }

    /// Takes what the hashing thread has read; at its end, compares.
    func pollProof() {
        guard let (reading, offset, theirs) = proof else { return }
        switch reading.poll() {
        case nil:
            isWaitingForDisk = true
        case .success(let prefix)?:
            proof = nil
            finishProof(prefix, read: reading.read, offset: offset, theirs: theirs)
        case .failure(let error)?:
            proof = nil
            cancel(error)
        }
    }

    /// Hashes our own first `offset` bytes on the caller's thread (a source without read-ahead).
    func proveResume(offset: UInt64, prefixHash: [UInt8]) {
        let (source, index) = (source, entryIndex)
        do {
            let (prefix, read) = try PrefixProof.hash(length: offset) { (at, buffer) throws(TransferError) in
                try source.read(entry: index, offset: at, into: buffer)
            }
            finishProof(prefix, read: read, offset: offset, theirs: prefixHash)
        } catch {
            cancel(error)
        }
    }

    /// Equal prefixes: only the rest is sent, hashed on from `prefix`.
    func finishProof(_ prefix: SHA256, read: UInt64, offset: UInt64, theirs: [UInt8]) {
        if read == offset, prefix.digest() == theirs {
            hasher = prefix
            bytesSkipped += offset
            startData(at: offset)
        } else {
            startData(at: 0)
        }
    }
}

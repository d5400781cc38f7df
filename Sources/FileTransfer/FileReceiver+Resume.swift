import Wire

/// A resume seen from the receiver (FileTransfer.md): what is already in
/// the `.part` is hashed and offered to the sender, which sends only the
/// rest if its own prefix hashes the same. With read-ahead the hashing runs
/// on `ReadAhead`'s thread, so a gigabyte-long `.part` never holds the loop:
/// `pollMessage` answers nil (`isWaitingForDisk`) until it is done, and the
/// thread's `wake` says when.
extension FileReceiver {
    func startProof() {
        guard let current else { return }
        existing = min(existing, current.entry.size)
        let sink = sink
        let reading = ReadAhead(name: current.path.description, offset: 0, size: existing, chunkSize: 1 << 18, hasher: SHA256(), wake: wake) {
            (offset, buffer) throws(TransferError) in try sink.readExisting(offset: offset, into: buffer)
        }
        proof = PrefixProof(reading: reading)
        state = .proving
    }

    /// Takes what the hashing thread has read; at its end, offers the resume.
    func pollProof() {
        guard let proof else { return }
        switch proof.poll() {
        case nil:
            isWaitingForDisk = true
        case .success(let prefix)?:
            self.proof = nil
            existing = proof.read
            prefixHasher = prefix
            offerResume()
        case .failure(let error)?:
            self.proof = nil
            stop(error)
        }
    }

    /// Stops the hashing thread before anything else touches the sink.
    func endProof() {
        proof?.close()
        proof = nil
    }

    func offerResume() {
        let prefix = prefixHasher ?? SHA256()
        outbox.append(TransferMessage.resume(offset: existing, prefixHash: prefix.digest()).encode())
        state = .awaitingStart
    }

    /// Hashes what is already in the partial file (at most the entry's size).
    /// On the caller's thread (a receiver without read-ahead).
    func proveExisting() throws(TransferError) -> SHA256 {
        guard let current, existing > 0 else { return SHA256() }
        let sink = sink
        let (prefix, read) = try PrefixProof.hash(length: min(existing, current.entry.size)) { (at, buffer) throws(TransferError) in
            try sink.readExisting(offset: at, into: buffer)
        }
        existing = read
        return prefix
    }
}

import Testing
import TestSupport
import Wire

@testable import SessionStore

/// The error each region of the file must produce when one bit in it flips.
private func expectedError(forFlipAt offset: Int, in original: [UInt8], flipped: [UInt8]) -> SessionStoreError {
    switch offset {
    case 0..<8: return .corrupted(reason: "not a chatcli session store")
    case 8..<10:
        let version = Int(flipped[8]) << 8 | Int(flipped[9])
        return version > 1 ? .newerVersion(version) : .corrupted(reason: "unknown format version \(version)")
    case 10..<StoreHeader.size: return .corrupted(reason: "damaged header")
    default: return .tampered
    }
}

@Test func wrongPassphraseIsItsOwnError() throws {
    let scratch = ScratchDirectory()
    let (store, before) = try populatedStore(scratch)
    #expect(throws: SessionStoreError.wrongPassphrase) { try store.read(passphrase: secret("correct horsE")) }
    #expect(throws: SessionStoreError.wrongPassphrase) {
        try store.withLockedStore(passphrase: secret("")) { _ throws(SessionStoreError) in }
    }
    #expect(fileBytes(store.path) == before)
}

@Test func everyFlippedBitIsDetectedAndNeverYieldsAlteredData() throws {
    let scratch = ScratchDirectory()
    let (_, original) = try populatedStore(scratch)
    let pass = secret("correct horse")
    var checked = 0
    for offset in original.indices {
        for bit in 0..<8 {
            var flipped = original
            flipped[offset] ^= UInt8(1 << bit)
            let want = expectedError(forFlipAt: offset, in: original, flipped: flipped)
            #expect(throws: want, "bit \(bit) of byte \(offset)") { try StoreFormat.open(flipped, passphrase: pass) }
            checked += 1
        }
    }
    #expect(checked == original.count * 8)
}

@Test func aRecomputedHeaderDigestStillCannotHideTampering() throws {
    // An attacker can recompute the unkeyed digest; then the key check or the
    // AEAD (which authenticates the whole header) catches the change.
    let scratch = ScratchDirectory()
    let (_, original) = try populatedStore(scratch)
    let pass = secret("correct horse")
    let digestStart = StoreHeader.size - StoreHeader.digestSize
    for offset in 10..<digestStart {
        var forged = original
        forged[offset] ^= 0x01
        let digest = StoreHeader.digest(Array(forged[0..<digestStart]))
        forged.replaceSubrange(digestStart..<StoreHeader.size, with: digest)
        do {
            _ = try StoreFormat.open(forged, passphrase: pass)
            Issue.record("forged header at \(offset) was accepted")
        } catch {
            let allowed: [SessionStoreError] = [
                .wrongPassphrase, .tampered, .truncated, .corrupted(reason: "unexpected data after the payload"),
                .corrupted(reason: "unknown key derivation 0"), .corrupted(reason: "key derivation parameters out of range"),
            ]
            #expect(allowed.contains(error) || error == .keyDerivationFailed, "offset \(offset): \(error)")
        }
    }
}

@Test func truncationAtEveryLengthIsDetected() throws {
    let scratch = ScratchDirectory()
    let (_, original) = try populatedStore(scratch)
    let pass = secret("correct horse")
    for length in 0..<original.count {
        #expect(throws: SessionStoreError.truncated, "length \(length)") {
            try StoreFormat.open(Array(original.prefix(length)), passphrase: pass)
        }
    }
    #expect(throws: SessionStoreError.corrupted(reason: "unexpected data after the payload")) {
        try StoreFormat.open(original + [0], passphrase: pass)
    }
}

@Test func aStoreFromANewerVersionIsRefusedWithUpgradeAdvice() throws {
    let scratch = ScratchDirectory()
    let (store, original) = try populatedStore(scratch)
    var newer = original
    newer[8] = 0
    newer[9] = 2
    writeBytes(newer, to: store.path)
    #expect(throws: SessionStoreError.newerVersion(2)) { try store.read(passphrase: secret("correct horse")) }
    #expect(throws: SessionStoreError.newerVersion(2)) {
        try store.withLockedStore(passphrase: secret("correct horse")) { c throws(SessionStoreError) in
            try c.remove(name: "alice")
        }
    }
    #expect(fileBytes(store.path) == newer)
    // Even a newer format whose header we cannot parse at all is recognised.
    #expect(throws: SessionStoreError.newerVersion(7)) {
        try StoreFormat.open(Array("CHATCLI\0".utf8) + [0, 7], passphrase: secret("x"))
    }
}

@Test func aFileThatIsNotAStoreIsReportedAsSuch() {
    #expect(throws: SessionStoreError.corrupted(reason: "not a chatcli session store")) {
        try StoreFormat.open(Array("{\"sessions\":[]}".utf8), passphrase: secret("x"))
    }
}

@Test func noPlaintextIdentifierAppearsInTheFile() throws {
    let scratch = ScratchDirectory()
    let (_, bytes) = try populatedStore(scratch)
    let record = sampleRecord("alice")
    let secrets = [
        record.name, "bob", record.code, "120044", record.deviceIDs[0], "dev-77aa55bb33cc11dd",
        "dev-old-0123456789", record.roomID ?? "", record.serverURL, "signal.example", "sessions", "deviceIds",
        "creator", "accepted",
    ]
    for text in secrets {
        #expect(!contains(bytes, Array(text.utf8)), "\(text) is visible in the store file")
    }
}

@Test func randomGarbageNeverCrashesTheParser() {
    var rng = SeededRandom(seed: 0x5EED)
    let pass = secret("x")
    for _ in 0..<3000 {
        let count = Int(rng.next() % 300)
        var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        if rng.next() % 2 == 0 && bytes.count >= 10 {
            bytes.replaceSubrange(0..<10, with: Array("CHATCLI\0".utf8) + [0, 1])
        }
        #expect(throws: SessionStoreError.self) { try StoreFormat.open(bytes, passphrase: pass) }
    }
}

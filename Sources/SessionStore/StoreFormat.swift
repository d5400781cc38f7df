import CSodium
import Wire

/// Sealing and opening the store's bytes (sans-IO: no files here).
///
/// key = Argon2id13(passphrase, salt, opslimit, memlimit) → 32 bytes;
/// keyCheck = BLAKE2b-128 keyed with the key over a fixed label, so a wrong
/// passphrase is told apart from a damaged ciphertext without revealing the key;
/// payload = XChaCha20-Poly1305(JSON, nonce, additional data = whole header).
enum StoreFormat {
    static let keySize = Int(crypto_aead_xchacha20poly1305_ietf_keybytes())
    static let tagSize = Int(crypto_aead_xchacha20poly1305_ietf_abytes())
    private static let checkLabel: [UInt8] = Array("chatcli session store key check v1".utf8)


    static func randomBytes(_ n: Int) -> [UInt8] {
        Sodium.initialize()
        var out = [UInt8](repeating: 0, count: n)
        randombytes_buf(&out, n)
        return out
    }

    static func deriveKey(passphrase: SecureBytes, salt: [UInt8], kdf: KDFParameters) throws(SessionStoreError)
        -> SecureBytes
    {
        Sodium.initialize()
        let key = SecureBytes(count: keySize)
        let rc = key.withPointer { k, kCount in
            passphrase.withPointer { p, pCount in
                p.withMemoryRebound(to: CChar.self, capacity: max(1, pCount)) { chars in
                    crypto_pwhash(
                        k, UInt64(kCount), chars, UInt64(pCount), salt, UInt64(kdf.opsLimit), Int(kdf.memLimit),
                        crypto_pwhash_alg_argon2id13())
                }
            }
        }
        guard rc == 0 else { throw .keyDerivationFailed }
        return key
    }

    static func keyCheck(_ key: SecureBytes) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: StoreHeader.checkSize)
        key.withPointer { k, n in
            _ = crypto_generichash(&out, out.count, checkLabel, UInt64(checkLabel.count), k, n)
        }
        return out
    }

    static func newKeying(passphrase: SecureBytes, kdf: KDFParameters) throws(SessionStoreError) -> StoreKey {
        let salt = randomBytes(StoreHeader.saltSize)
        return StoreKey(key: try deriveKey(passphrase: passphrase, salt: salt, kdf: kdf), salt: salt, kdf: kdf)
    }

    /// The complete file bytes for `contents`, with a fresh random nonce.
    static func seal(_ contents: StoreContents, keying: StoreKey) -> [UInt8] {
        var plaintext = contents.json.serializedBytes
        defer { plaintext.withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) } }
        let header = StoreHeader(
            kdf: keying.kdf, salt: keying.salt, nonce: randomBytes(StoreHeader.nonceSize),
            keyCheck: keyCheck(keying.key), ciphertextLength: UInt32(plaintext.count + tagSize))
        let ad = header.bytes
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + tagSize)
        var written: UInt64 = 0
        keying.key.withPointer { k, _ in
            _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                &ciphertext, &written, plaintext, UInt64(plaintext.count), ad, UInt64(ad.count), nil,
                header.nonce, k)
        }
        return ad + ciphertext
    }

    /// Opens file bytes. Errors: see ``StoreHeader/parse(_:)``, then
    /// `.truncated` / `.corrupted` for a length mismatch, `.wrongPassphrase`
    /// when the key check differs, `.tampered` when the AEAD fails.
    static func open(_ file: [UInt8], passphrase: SecureBytes) throws(SessionStoreError) -> (StoreContents, StoreKey) {
        let header = try StoreHeader.parse(file)
        let expected = StoreHeader.size + Int(header.ciphertextLength)
        guard file.count >= expected else { throw .truncated }
        guard file.count == expected else { throw .corrupted(reason: "unexpected data after the payload") }
        guard Int(header.ciphertextLength) >= tagSize else { throw .corrupted(reason: "payload too short") }
        let key = try deriveKey(passphrase: passphrase, salt: header.salt, kdf: header.kdf)
        return try decrypt(file, header: header, key: key)
    }

    /// Opens file bytes with a key derived earlier (the keyring's cache): a
    /// key for another salt or parameters (the store was re-keyed since) is
    /// `.wrongPassphrase`, as a wrong passphrase would be.
    static func open(_ file: [UInt8], key cached: StoreKey) throws(SessionStoreError) -> (StoreContents, StoreKey) {
        let header = try StoreHeader.parse(file)
        let expected = StoreHeader.size + Int(header.ciphertextLength)
        guard file.count >= expected else { throw .truncated }
        guard file.count == expected else { throw .corrupted(reason: "unexpected data after the payload") }
        guard Int(header.ciphertextLength) >= tagSize else { throw .corrupted(reason: "payload too short") }
        guard cached.salt == header.salt, cached.kdf == header.kdf else { throw .wrongPassphrase }
        return try decrypt(file, header: header, key: cached.key)
    }

    private static func decrypt(_ file: [UInt8], header: StoreHeader, key: SecureBytes) throws(SessionStoreError)
        -> (StoreContents, StoreKey)
    {
        guard sodium_memcmp(keyCheck(key), header.keyCheck, StoreHeader.checkSize) == 0 else {
            throw .wrongPassphrase
        }
        let ad = Array(file[0..<StoreHeader.size])
        let ciphertext = Array(file[StoreHeader.size...])
        let plaintext = SecureBytes(count: ciphertext.count - tagSize)
        var plainLength: UInt64 = 0
        let rc = plaintext.withPointer { m, _ in
            key.withPointer { k, _ in
                crypto_aead_xchacha20poly1305_ietf_decrypt(
                    m, &plainLength, nil, ciphertext, UInt64(ciphertext.count), ad, UInt64(ad.count),
                    header.nonce, k)
            }
        }
        guard rc == 0 else { throw .tampered }
        let parsed: JSON
        do {
            parsed = try plaintext.withUnsafeBytes { (p) throws(JSONError) -> JSON in try JSON.parse(p) }
        } catch {
            throw .corrupted(reason: "unreadable contents")
        }
        guard let contents = StoreContents(json: parsed) else { throw .corrupted(reason: "unreadable contents") }
        return (contents, StoreKey(key: key, salt: header.salt, kdf: header.kdf))
    }
}

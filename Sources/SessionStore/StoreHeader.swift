import CSodium
import Wire

/// Argon2id cost parameters. They are stored in each file's header, so a later
/// chatcli can raise the defaults and still open older stores.
public struct KDFParameters: Equatable, Sendable {
    public var opsLimit: UInt32
    public var memLimit: UInt64

    public init(opsLimit: UInt32, memLimit: UInt64) {
        self.opsLimit = opsLimit
        self.memLimit = memLimit
    }

    /// libsodium's interactive limits (Argon2id: 2 passes, 64 MiB, about 0.1 s).
    public static var interactive: KDFParameters {
        KDFParameters(
            opsLimit: UInt32(crypto_pwhash_opslimit_interactive()),
            memLimit: UInt64(crypto_pwhash_memlimit_interactive()))
    }

    /// The cheapest parameters libsodium accepts; for tests only.
    public static var minimum: KDFParameters {
        KDFParameters(opsLimit: UInt32(crypto_pwhash_opslimit_min()), memLimit: UInt64(crypto_pwhash_memlimit_min()))
    }

    /// Bounds applied to parameters read from disk, so a crafted header cannot
    /// make us spin for hours or ask for terabytes before the key check.
    var isAcceptable: Bool {
        opsLimit >= UInt32(crypto_pwhash_opslimit_min()) && opsLimit <= 64
            && memLimit >= UInt64(crypto_pwhash_memlimit_min()) && memLimit <= 4 << 30
    }
}

/// The fixed-size binary header in front of the ciphertext. All of it is the
/// AEAD's additional data; `digest` (unkeyed BLAKE2b of the bytes before it)
/// tells accidental header damage apart from a wrong passphrase.
///
/// ```
/// magic "CHATCLI\0" (8) | version u16 | kdf u8 | opslimit u32 | memlimit u64
/// | salt (16) | nonce (24) | keyCheck (16) | ciphertext length u32 | digest (16)
/// ```
/// Integers are big-endian. `magic` and `version` stay first in every future
/// format, so an old chatcli can always say "upgrade".
struct StoreHeader: Equatable {
    static let magic: [UInt8] = Array("CHATCLI".utf8) + [0]
    static let currentVersion: UInt16 = 1
    static let kdfArgon2id13: UInt8 = 1
    static let saltSize = 16
    static let nonceSize = 24
    static let checkSize = 16
    static let digestSize = 16
    static let size = 8 + 2 + 1 + 4 + 8 + saltSize + nonceSize + checkSize + 4 + digestSize

    var version: UInt16 = currentVersion
    var kdf: KDFParameters
    var salt: [UInt8]
    var nonce: [UInt8]
    var keyCheck: [UInt8]
    var ciphertextLength: UInt32

    /// The serialized header, digest included.
    var bytes: [UInt8] {
        var w = ByteWriter(capacity: Self.size)
        w.write(Self.magic)
        w.writeU16(version)
        w.writeU8(Self.kdfArgon2id13)
        w.writeU32(kdf.opsLimit)
        w.writeU64(kdf.memLimit)
        w.write(salt)
        w.write(nonce)
        w.write(keyCheck)
        w.writeU32(ciphertextLength)
        w.write(Self.digest(w.bytes))
        return w.bytes
    }

    static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: digestSize)
        _ = crypto_generichash(&out, digestSize, bytes, UInt64(bytes.count), nil, 0)
        return out
    }

    /// Parses the header at the start of `file`. Checks run in an order that
    /// gives the most useful answer: not-a-store, newer version, truncation,
    /// damage, then parameter sanity.
    static func parse(_ file: [UInt8]) throws(SessionStoreError) -> StoreHeader {
        var r = ByteReader(file)
        guard let magic = r.readBytes(magic.count) else {
            if Array(file.prefix(Self.magic.count)) == Array(Self.magic.prefix(file.count)) { throw .truncated }
            throw .corrupted(reason: "not a chatcli session store")
        }
        guard magic == Self.magic else { throw .corrupted(reason: "not a chatcli session store") }
        guard let version = r.readU16() else { throw .truncated }
        if version > currentVersion { throw .newerVersion(Int(version)) }
        guard version == currentVersion else { throw .corrupted(reason: "unknown format version \(version)") }
        guard file.count >= size else { throw .truncated }
        guard digest(Array(file[0..<(size - digestSize)])) == Array(file[(size - digestSize)..<size]) else {
            throw .corrupted(reason: "damaged header")
        }
        guard let kdfID = r.readU8(), let ops = r.readU32(), let mem = r.readU64(),
            let salt = r.readBytes(saltSize), let nonce = r.readBytes(nonceSize),
            let check = r.readBytes(checkSize), let length = r.readU32()
        else { throw .truncated }
        guard kdfID == kdfArgon2id13 else { throw .corrupted(reason: "unknown key derivation \(kdfID)") }
        let kdf = KDFParameters(opsLimit: ops, memLimit: mem)
        guard kdf.isAcceptable else { throw .corrupted(reason: "key derivation parameters out of range") }
        return StoreHeader(
            version: version, kdf: kdf, salt: salt, nonce: nonce, keyCheck: check, ciphertextLength: length)
    }
}

import CSodium

/// CPace (draft-irtf-cfrg-cpace) with the ristretto255 group and SHA-512,
/// on libsodium: the generator from the password, the public shares, the
/// shared point, the intermediate session key (ISK) and the explicit key
/// confirmation tags the draft recommends. Pure functions; the exchange
/// itself is `PAKEHandshake`.
public enum CPace {
    public static let dsi = Array("CPaceRistretto255".utf8)
    /// SHA-512's input block size (`H.s_in_bytes`).
    static let hashBlockBytes = 128
    public static let elementBytes = 32
    public static let scalarBytes = 32
    public static let tagBytes = 64

    /// `generator_string(G.DSI, PRS, CI, sid, H.s_in_bytes)`.
    public static func generatorString(prs: [UInt8], ci: [UInt8], sid: [UInt8]) -> [UInt8] {
        let padding = max(0, hashBlockBytes - 1 - LengthValue.prependLength(prs).count - LengthValue.prependLength(dsi).count)
        return LengthValue.concatenate(dsi, prs, [UInt8](repeating: 0, count: padding), ci, sid)
    }

    /// `G.calculate_generator`: the encoded generator for these inputs.
    public static func generator(prs: [UInt8], ci: [UInt8], sid: [UInt8]) -> [UInt8] {
        let hash = sha512(generatorString(prs: prs, ci: ci, sid: sid))
        var point = [UInt8](repeating: 0, count: elementBytes)
        _ = crypto_core_ristretto255_from_hash(&point, hash)
        return point
    }

    /// `G.sample_scalar()`: 32 random bytes with the bits above 252 cleared.
    public static func sampleScalar(using rng: inout some RandomNumberGenerator) -> [UInt8] {
        var scalar: [UInt8] = []
        for _ in 0..<4 { withUnsafeBytes(of: rng.next() as UInt64) { scalar.append(contentsOf: $0) } }
        scalar[31] &= 0x0F
        return scalar
    }

    /// `G.scalar_mult_vfy(y, X)`: nil where the draft returns `G.I` (X does
    /// not decode, or the product is the neutral element).
    public static func scalarMultiply(_ scalar: [UInt8], _ element: [UInt8]) -> [UInt8]? {
        guard scalar.count == scalarBytes, element.count == elementBytes else { return nil }
        var out = [UInt8](repeating: 0, count: elementBytes)
        return crypto_scalarmult_ristretto255(&out, scalar, element) == 0 ? out : nil
    }

    /// `ISK = H(lv_cat(DSI || "_ISK", sid, K) || transcript_ir(Ya, ADa, Yb, ADb))`.
    public static func intermediateSessionKey(sid: [UInt8], k: [UInt8], ya: [UInt8], ada: [UInt8], yb: [UInt8], adb: [UInt8]) -> [UInt8] {
        let prefix = LengthValue.concatenate(dsi + Array("_ISK".utf8), sid, k)
        return sha512(prefix + transcriptIR(ya: ya, ada: ada, yb: yb, adb: adb))
    }

    /// `transcript_ir(Ya, ADa, Yb, ADb)`: initiator first.
    public static func transcriptIR(ya: [UInt8], ada: [UInt8], yb: [UInt8], adb: [UInt8]) -> [UInt8] {
        LengthValue.concatenate(ya, ada) + LengthValue.concatenate(yb, adb)
    }

    /// `transcript_oc(Ya, ADa, Yb, ADb)`: for the symmetric setting (tests only here).
    public static func transcriptOC(ya: [UInt8], ada: [UInt8], yb: [UInt8], adb: [UInt8]) -> [UInt8] {
        LengthValue.orderedConcatenation(LengthValue.concatenate(ya, ada), LengthValue.concatenate(yb, adb))
    }

    /// Key confirmation (draft §"Key confirmation"): `mac_key = H("CPaceMac" || sid || ISK)`,
    /// and each side's tag is `HMAC(mac_key, lv_cat(Y, AD))` over the share it sent.
    public static func confirmationTag(isk: [UInt8], sid: [UInt8], share: [UInt8], ad: [UInt8]) -> [UInt8] {
        let macKey = sha512(Array("CPaceMac".utf8) + sid + isk)
        return hmacSHA512(key: macKey, LengthValue.concatenate(share, ad))
    }

    public static func sha512(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 64)
        _ = crypto_hash_sha512(&out, data, UInt64(data.count))
        return out
    }

    static func hmacSHA512(key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        var state = crypto_auth_hmacsha512_state()
        var out = [UInt8](repeating: 0, count: tagBytes)
        _ = crypto_auth_hmacsha512_init(&state, key, key.count)
        _ = crypto_auth_hmacsha512_update(&state, data, UInt64(data.count))
        _ = crypto_auth_hmacsha512_final(&state, &out)
        sodium_memzero(&state, MemoryLayout<crypto_auth_hmacsha512_state>.size)
        return out
    }

    /// Compares in constant time (tags).
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count, !a.isEmpty else { return false }
        return sodium_memcmp(a, b, a.count) == 0
    }
}

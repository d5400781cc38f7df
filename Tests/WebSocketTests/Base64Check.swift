import Wire

/// String-level wrapper over `Wire.Base64` for readable test vectors.
enum Base64Check {
    static func encode(_ s: String) -> String { Base64.encode(Array(s.utf8)) }
    static func decode(_ s: String) -> String? { Base64.decode(s).map { String(decoding: $0, as: UTF8.self) } }
}

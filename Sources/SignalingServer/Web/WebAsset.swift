import COpenSSL

/// One file of the web client, embedded in the binary so a server needs no
/// files on disk. The ETag is a hash of the bytes, so it changes exactly
/// when the asset does.
public struct WebAsset: Sendable {
    public let path: String
    public let contentType: String
    public let bytes: [UInt8]
    public let etag: String

    init(path: String, contentType: String, text: String) {
        self.path = path
        self.contentType = contentType
        bytes = Array(text.utf8)
        etag = "\"" + Self.hash(bytes) + "\""
    }

    /// The first 16 bytes of SHA-256, in hex.
    static func hash(_ bytes: [UInt8]) -> String {
        var out = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { o in _ = SHA256(input.baseAddress, input.count, o.baseAddress) }
        }
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: out.prefix(16).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] }, as: UTF8.self)
    }

    /// Every asset the page loads, by path. `/` and `/j/CODE` both answer
    /// with `index`: the script reads the code from the address.
    public static let index = WebAsset(path: "/", contentType: "text/html; charset=utf-8", text: WebPage.html)
    public static let all: [WebAsset] = [
        index,
        WebAsset(path: "/app.css", contentType: "text/css; charset=utf-8", text: WebPage.css),
        WebAsset(path: "/app.js", contentType: "text/javascript; charset=utf-8", text: WebPage.script),
        WebAsset(path: "/sas-words.js", contentType: "text/javascript; charset=utf-8", text: WebPage.sasWords),
        WebAsset(path: "/code-words.js", contentType: "text/javascript; charset=utf-8", text: WebPage.codeWords),
        WebAsset(path: "/cpace.js", contentType: "text/javascript; charset=utf-8", text: WebPage.cpace),
        WebAsset(path: "/icon.svg", contentType: "image/svg+xml", text: WebPage.icon),
    ]
}

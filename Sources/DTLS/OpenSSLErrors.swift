import COpenSSL

/// OpenSSL keeps a per-thread error queue. Every call into OpenSSL here starts
/// with `clear()` and failures are read with `drain()`, so one endpoint's errors
/// never show up in another endpoint's message.
enum OpenSSLErrors {
    static func clear() { ERR_clear_error() }

    /// All queued errors as one line (`error:…:reason; error:…`), the queue left empty.
    static func drain() -> String {
        var messages: [String] = []
        var buffer = [CChar](repeating: 0, count: 256)
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            let text = buffer.withUnsafeMutableBufferPointer { ptr -> String in
                ERR_error_string_n(code, ptr.baseAddress, ptr.count)
                let bytes = UnsafeRawBufferPointer(ptr).prefix { $0 != 0 }
                return String(decoding: bytes, as: UTF8.self)
            }
            if messages.count < 8 { messages.append(text) }
        }
        return messages.isEmpty ? "no detail from OpenSSL" : messages.joined(separator: "; ")
    }
}

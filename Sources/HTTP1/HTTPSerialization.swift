extension HTTPResponse {
    /// The response as it goes on the wire. `Content-Length` is added unless
    /// present, chunked, or the status forbids a body (1xx, 204, 304), in
    /// which case the body is not sent either.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128 + body.count)
        out.append(contentsOf: "HTTP/1.1 \(status) ".utf8)
        HTTPWire.appendSafe(reason, to: &out)
        out.append(contentsOf: HTTPWire.crlf)
        let bodyless = status < 200 || status == 204 || status == 304
        HTTPWire.append(headers, to: &out)
        if !bodyless, headers["Content-Length"] == nil, headers["Transfer-Encoding"] == nil {
            out.append(contentsOf: "Content-Length: \(body.count)\r\n".utf8)
        }
        out.append(contentsOf: HTTPWire.crlf)
        if !bodyless { out.append(contentsOf: body) }
        return out
    }
}

extension HTTPRequest {
    /// The request as it goes on the wire. `Host` is added unless present;
    /// `Content-Length` when there is a body or the method usually carries one.
    public func serialized(host: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128 + body.count)
        HTTPWire.appendSafe(method, to: &out)
        out.append(HTTPWire.sp)
        HTTPWire.appendSafe(target, to: &out)
        out.append(contentsOf: (isHTTP10 ? " HTTP/1.0" : " HTTP/1.1").utf8)
        out.append(contentsOf: HTTPWire.crlf)
        if headers["Host"] == nil {
            out.append(contentsOf: "Host: ".utf8)
            HTTPWire.appendSafe(host, to: &out)
            out.append(contentsOf: HTTPWire.crlf)
        }
        HTTPWire.append(headers, to: &out)
        let carriesBody = !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method)
        if carriesBody, headers["Content-Length"] == nil, headers["Transfer-Encoding"] == nil {
            out.append(contentsOf: "Content-Length: \(body.count)\r\n".utf8)
        }
        out.append(contentsOf: HTTPWire.crlf)
        out.append(contentsOf: body)
        return out
    }
}

enum HTTPWire {
    static let crlf: [UInt8] = [13, 10]
    static let sp: UInt8 = 32

    static func append(_ headers: HTTPHeaders, to out: inout [UInt8]) {
        for field in headers.fields {
            appendSafe(field.name, to: &out)
            out.append(contentsOf: ": ".utf8)
            appendSafe(field.value, to: &out)
            out.append(contentsOf: crlf)
        }
    }

    /// Writes `text` with CR, LF and NUL replaced by spaces, so a value that
    /// came from user input cannot split the message (response splitting).
    static func appendSafe(_ text: String, to out: inout [UInt8]) {
        for c in text.utf8 {
            out.append(c == 13 || c == 10 || c == 0 ? sp : c)
        }
    }
}

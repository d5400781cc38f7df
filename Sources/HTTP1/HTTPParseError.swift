/// Why an HTTP/1.1 message could not be parsed (RFC 9112). Each case maps to the
/// status a server answers with before closing the connection.
public enum HTTPParseError: Error, Equatable, Sendable {
    /// The request line is not `method SP request-target SP HTTP-version`.
    case badRequestLine
    /// The status line is not `HTTP-version SP 3DIGIT SP reason`.
    case badStatusLine
    /// A well-formed version other than HTTP/1.x.
    case unsupportedVersion
    /// A field name is empty, has whitespace before the colon, or holds non-token characters.
    case invalidHeaderName
    /// A field value or line holds control characters (NUL, bare CR, ...).
    case invalidHeaderValue
    /// A field line continued on the next line (obs-fold), rejected in requests (RFC 9112 §5.2).
    case obsoleteLineFolding
    /// Request line plus header section (or a trailer section) over the limit.
    case headersTooLarge
    /// `Content-Length` is not a decimal number, or several disagree.
    case invalidContentLength
    /// `Transfer-Encoding` with `Content-Length`, in HTTP/1.0, or without `chunked` last.
    case invalidTransferEncoding
    /// A transfer coding other than `chunked` (such as `gzip, chunked`).
    case unsupportedTransferCoding
    /// A malformed chunk-size line or a chunk not followed by CRLF.
    case invalidChunk
    /// The body exceeds the limit. `declared` is the `Content-Length` when the
    /// size was known from the head (nothing of the body was read yet), or nil
    /// when a chunked or close-delimited body grew past the limit.
    case bodyTooLarge(declared: Int?)
    /// The connection ended in the middle of a message.
    case unexpectedEnd

    /// The response status a server sends for this error.
    public var status: Int {
        switch self {
        case .headersTooLarge: return 431
        case .bodyTooLarge: return 413
        case .unsupportedVersion: return 505
        case .unsupportedTransferCoding: return 501
        case .badRequestLine, .badStatusLine, .invalidHeaderName, .invalidHeaderValue,
             .obsoleteLineFolding, .invalidContentLength, .invalidTransferEncoding,
             .invalidChunk, .unexpectedEnd:
            return 400
        }
    }

    /// A ready-made error response with `Connection: close`: after a parse
    /// error the stream cannot be trusted to be in sync.
    public var response: HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/plain; charset=utf-8")
        headers.add("Connection", "close")
        var response = HTTPResponse(status: status, headers: headers)
        if status == 505 { response.reason = "HTTP Version Not Supported" }
        if status == 501 { response.reason = "Not Implemented" }
        response.body = Array((response.reason + "\n").utf8)
        return response
    }
}

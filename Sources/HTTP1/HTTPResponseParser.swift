import Wire

/// An incremental, sans-IO HTTP/1.1 response parser (RFC 9112), the client
/// side of ``HTTPRequestParser``.
///
/// The parser cannot know which request a response answers, so the caller
/// passes the request method to ``next(respondingTo:)``: responses to `HEAD`
/// have no body whatever their headers say. 1xx, 204 and 304 responses have no
/// body either; interim 1xx responses (other than 101) are returned like any
/// other and the caller skips them. A response without `Content-Length` or
/// chunked framing ends when the connection closes: call ``finish()`` at EOF.
/// After a `101 Switching Protocols` the parser stops and
/// ``takeRemainingBytes()`` yields the bytes of the new protocol.
public struct HTTPResponseParser: Sendable {
    public var maxHeadSize: Int { input.maxHeadSize }
    public var maxBodySize: Int { input.maxBodySize }

    private enum Phase: Sendable {
        case head
        case body(HTTPResponse, HTTPBodyDecoder)
        case upgraded
        case failed(HTTPParseError)
    }

    private var input: HTTPInput
    private var phase = Phase.head
    private var body: [UInt8] = []
    private var atEOF = false

    public init(maxHeadSize: Int = 16 * 1024, maxBodySize: Int = 64 * 1024) {
        input = HTTPInput(maxHeadSize: maxHeadSize, maxBodySize: maxBodySize)
    }

    public mutating func feed<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        input.feed(bytes)
    }

    /// True after a `101` response was returned.
    public var isUpgraded: Bool {
        if case .upgraded = phase { return true }
        return false
    }

    /// The next complete response, or nil if more bytes are needed.
    /// `method` is the method of the request this response answers.
    public mutating func next(respondingTo method: String = "GET") throws(HTTPParseError) -> HTTPResponse? {
        switch phase {
        case .failed(let error):
            throw error
        case .upgraded:
            return nil
        case .head:
            do throws(HTTPParseError) {
                guard let response = try parseHead() else {
                    if atEOF, !input.queue.isEmpty { throw .unexpectedEnd }
                    return nil
                }
                let framing = try Self.framing(for: response, method: method, maxBody: maxBodySize)
                phase = .body(response, HTTPBodyDecoder(framing: framing, maxBody: maxBodySize, maxTrailers: maxHeadSize))
                return try next(respondingTo: method)
            } catch {
                phase = .failed(error)
                throw error
            }
        case .body(var response, var decoder):
            do throws(HTTPParseError) {
                guard try decoder.decode(&input.queue, into: &body, atEOF: atEOF) else {
                    phase = .body(response, decoder)
                    return nil
                }
                response.body = body
                body = []
                phase = response.status == 101 ? .upgraded : .head
                return response
            } catch {
                phase = .failed(error)
                throw error
            }
        }
    }

    /// Signals that the connection was closed by the peer. Completes a
    /// close-delimited body; a message cut short throws ``HTTPParseError/unexpectedEnd``.
    public mutating func finish(respondingTo method: String = "GET") throws(HTTPParseError) -> HTTPResponse? {
        atEOF = true
        return try next(respondingTo: method)
    }

    /// Hands over everything received after a `101` response's head.
    public mutating func takeRemainingBytes() -> [UInt8] {
        phase = .upgraded
        return input.queue.takeAll()
    }

    private mutating func parseHead() throws(HTTPParseError) -> HTTPResponse? {
        guard let lines = try input.nextHead() else { return nil }
        guard let first = lines.first else { throw .badStatusLine }
        var response = try Self.statusLine(first)
        // A user agent unfolds obs-fold instead of rejecting it (RFC 9112 §5.2).
        response.headers = try HTTPSyntax.fields(lines.dropFirst().dropLast(), unfold: true)
        return response
    }

    /// status-line = HTTP-version SP status-code SP [ reason-phrase ]; a
    /// missing final SP is tolerated.
    static func statusLine(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> HTTPResponse {
        let parts = line.split(separator: HTTPSyntax.sp, maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, let version = HTTPSyntax.version(parts[0]) else { throw .badStatusLine }
        guard version.major == 1 else { throw .unsupportedVersion }
        let code = parts[1]
        guard code.count == 3, code.allSatisfy(HTTPSyntax.isDigit) else { throw .badStatusLine }
        let status = code.reduce(0) { $0 * 10 + Int($1 - 48) }
        guard status >= 100 else { throw .badStatusLine }
        let reason = parts.count > 2 ? parts[2] : []
        guard reason.allSatisfy(HTTPSyntax.isFieldValueChar) else { throw .badStatusLine }
        return HTTPResponse(status: status, reason: HTTPSyntax.string(reason))
    }

    /// Response framing (RFC 9112 §6.3): no body for HEAD, 1xx, 204 and 304;
    /// chunked if Transfer-Encoding ends in it (it overrides Content-Length);
    /// else Content-Length; else until the connection closes.
    static func framing(for response: HTTPResponse, method: String, maxBody: Int) throws(HTTPParseError) -> HTTPFraming {
        if method == "HEAD" || response.status < 200 || response.status == 204 || response.status == 304 {
            return .none
        }
        if response.headers["Transfer-Encoding"] != nil {
            return HTTPSyntax.transferCodings(response.headers).last == "chunked" ? .chunked : .untilClose
        }
        if let length = try HTTPSyntax.contentLength(response.headers) {
            guard length <= maxBody else { throw .bodyTooLarge(declared: length) }
            return .contentLength(length)
        }
        return .untilClose
    }
}

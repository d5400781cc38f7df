import Wire

/// An incremental, sans-IO HTTP/1.1 request parser (RFC 9112).
///
/// Feed it bytes as they arrive and call ``next()`` until it returns nil;
/// pipelined requests on a keep-alive connection come out one after another.
///
/// ```swift
/// var parser = HTTPRequestParser()
/// parser.feed(bytesFromSocket)
/// while let request = try parser.next() { handle(request) }
/// ```
///
/// - Limits: the request line plus header section may be at most
///   `maxHeadSize` bytes (default 16 KiB, else ``HTTPParseError/headersTooLarge``,
///   431) and the body at most `maxBodySize` (default 64 KiB, else
///   ``HTTPParseError/bodyTooLarge(declared:)``, 413). A too-large
///   `Content-Length` is reported as soon as the head has arrived, before any
///   of the body is read, so a server can answer 413 with `Connection: close`
///   and then drain or half-close instead of resetting the connection.
/// - After any error the parser stays failed: the stream is out of sync.
/// - After a request that asks to switch protocols (`Connection: upgrade` and
///   `Upgrade`), parsing pauses: the server either accepts and takes the
///   following bytes (WebSocket frames) with ``takeRemainingBytes()``, or
///   declines with ``declineUpgrade()`` and keeps speaking HTTP/1.1.
public struct HTTPRequestParser: Sendable {
    public var maxHeadSize: Int { input.maxHeadSize }
    public var maxBodySize: Int { input.maxBodySize }

    private enum Phase: Sendable {
        case head
        case body(HTTPRequest, HTTPBodyDecoder)
        case awaitingUpgrade
        case upgraded
        case failed(HTTPParseError)
    }

    private var input: HTTPInput
    private var phase = Phase.head
    private var body: [UInt8] = []
    private var continueRequested = false

    public init(maxHeadSize: Int = 16 * 1024, maxBodySize: Int = 64 * 1024) {
        input = HTTPInput(maxHeadSize: maxHeadSize, maxBodySize: maxBodySize)
    }

    public mutating func feed<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        input.feed(bytes)
    }

    /// Bytes received but not yet part of a returned request.
    public var bufferedByteCount: Int { input.queue.count }

    /// True between messages with nothing buffered: a keep-alive timeout here
    /// closes silently; elsewhere it is a 408.
    public var isIdle: Bool {
        if case .head = phase { return input.queue.isEmpty }
        return false
    }

    /// True after a request with `Connection: upgrade` was returned, until the
    /// server calls ``takeRemainingBytes()`` or ``declineUpgrade()``.
    public var isAwaitingUpgrade: Bool {
        if case .awaitingUpgrade = phase { return true }
        return false
    }

    /// True once, when the head of a pending request carried
    /// `Expect: 100-continue`: the server may send `100 Continue` (or reject).
    public mutating func takeContinueRequest() -> Bool {
        defer { continueRequested = false }
        return continueRequested
    }

    /// The next complete request, or nil if more bytes are needed.
    public mutating func next() throws(HTTPParseError) -> HTTPRequest? {
        switch phase {
        case .failed(let error):
            throw error
        case .awaitingUpgrade, .upgraded:
            return nil
        case .head:
            do throws(HTTPParseError) {
                guard let request = try parseHead() else { return nil }
                let decoder = try Self.bodyDecoder(for: request, maxBody: maxBodySize, maxTrailers: maxHeadSize)
                phase = .body(request, decoder)
                if decoder.isDone { return complete() }
                continueRequested = !request.isHTTP10 && request.headers["Expect"]?.lowercased() == "100-continue"
                return try next()
            } catch {
                phase = .failed(error)
                throw error
            }
        case .body(let request, var decoder):
            do throws(HTTPParseError) {
                let done = try decoder.decode(&input.queue, into: &body, atEOF: false)
                phase = .body(request, decoder)
                return done ? complete() : nil
            } catch {
                phase = .failed(error)
                throw error
            }
        }
    }

    /// Hands over everything received after the upgrade request (the first
    /// frames of the new protocol); the parser is done after this.
    public mutating func takeRemainingBytes() -> [UInt8] {
        phase = .upgraded
        return input.queue.takeAll()
    }

    /// Continues parsing HTTP/1.1 after the server ignored an `Upgrade` request.
    public mutating func declineUpgrade() {
        if case .awaitingUpgrade = phase { phase = .head }
    }

    private mutating func complete() -> HTTPRequest? {
        guard case .body(var request, _) = phase else { return nil }
        request.body = body
        body = []
        continueRequested = false
        let upgrading = request.headers["Upgrade"] != nil && request.headers.contains("Connection", token: "upgrade")
        phase = upgrading ? .awaitingUpgrade : .head
        return request
    }

    private mutating func parseHead() throws(HTTPParseError) -> HTTPRequest? {
        guard let lines = try input.nextHead() else { return nil }
        guard let first = lines.first else { throw .badRequestLine }
        var request = try Self.requestLine(first)
        request.headers = try HTTPSyntax.fields(lines.dropFirst().dropLast(), unfold: false)
        return request
    }

    /// request-line = method SP request-target SP HTTP-version
    static func requestLine(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> HTTPRequest {
        let parts = line.split(separator: HTTPSyntax.sp, omittingEmptySubsequences: false)
        guard parts.count == 3, HTTPSyntax.isToken(parts[0]) else { throw .badRequestLine }
        let target = parts[1]
        guard !target.isEmpty, target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw .badRequestLine }
        guard let version = HTTPSyntax.version(parts[2]) else { throw .badRequestLine }
        // HTTP/1.x with x > 1 is served as 1.1 (RFC 9110 §2.5); other majors are not ours.
        guard version.major == 1 else { throw .unsupportedVersion }
        return HTTPRequest(
            method: HTTPSyntax.string(parts[0]), target: HTTPSyntax.string(target),
            isHTTP10: version.minor == 0)
    }

    /// Request framing (RFC 9112 §6.3): Transfer-Encoding must end in chunked
    /// and may not be combined with Content-Length (a smuggling vector) or used
    /// in HTTP/1.0; otherwise Content-Length, otherwise no body.
    static func bodyDecoder(for request: HTTPRequest, maxBody: Int, maxTrailers: Int) throws(HTTPParseError) -> HTTPBodyDecoder {
        let codings = HTTPSyntax.transferCodings(request.headers)
        let length = try HTTPSyntax.contentLength(request.headers)
        let framing: HTTPFraming
        if request.headers["Transfer-Encoding"] != nil {
            guard !request.isHTTP10, length == nil, codings.last == "chunked",
                  codings.filter({ $0 == "chunked" }).count == 1 else { throw .invalidTransferEncoding }
            guard codings.count == 1 else { throw .unsupportedTransferCoding }
            framing = .chunked
        } else if let length {
            guard length <= maxBody else { throw .bodyTooLarge(declared: length) }
            framing = .contentLength(length)
        } else {
            framing = .none
        }
        return HTTPBodyDecoder(framing: framing, maxBody: maxBody, maxTrailers: maxTrailers)
    }
}

import ChatClient
import HTTP1
import Runtime
import Wire

/// A small HTTP/1.1 client for the REST calls: one request at a time over a
/// kept-alive connection, reconnecting when the server closed it. Every
/// request has a deadline so nothing ever hangs.
public final class HTTPClient {
    private let connector: Connector
    private var stream: (any ByteStream)?
    private var busy = false
    private var queue = Deque<(HTTPRequest, Duration, (Result<HTTPResponse, ClientError>) -> Void)>()

    public init(connector: Connector) { self.connector = connector }

    public var authority: String { connector.server.authority }
    var connectorHost: String { connector.server.authorityHost }
    /// `--ca-file`, trusted for `turns:` relays too.
    var caFile: String? { connector.caFile }

    public func send(_ request: HTTPRequest, timeout: Duration = .seconds(15),
                     _ completion: @escaping (Result<HTTPResponse, ClientError>) -> Void) {
        queue.append((request, timeout, completion))
        pump()
    }

    /// Drops the connection and fails whatever is pending.
    public func close() {
        stream?.onClose = nil
        stream?.onData = nil
        stream?.close()
        stream = nil
    }

    private func pump() {
        guard !busy, let (request, timeout, completion) = queue.popFirst() else { return }
        busy = true
        var finished = false
        var timer: Timer?
        let finish: (Result<HTTPResponse, ClientError>) -> Void = { [weak self] result in
            guard !finished else { return }
            finished = true
            timer?.cancel()
            self?.busy = false
            completion(result)
            self?.pump()
        }
        timer = connector.loop.schedule(after: timeout) { [weak self] in
            self?.close()
            finish(.failure(.timeout("waiting for the server to answer \(request.method) \(request.path)")))
        }
        if let stream {
            exchange(request, on: stream, reused: true, finish)
        } else {
            connector.connect { [weak self] result in
                guard let self, !finished else { return }
                switch result {
                case .failure(let error): finish(.failure(error))
                case .success(let stream):
                    self.stream = stream
                    self.exchange(request, on: stream, reused: false, finish)
                }
            }
        }
    }

    private func exchange(_ request: HTTPRequest, on stream: any ByteStream, reused: Bool,
                          _ finish: @escaping (Result<HTTPResponse, ClientError>) -> Void) {
        var parser = HTTPResponseParser()
        var gotBytes = false
        stream.onData = { [weak self] bytes in
            gotBytes = true
            parser.feed(bytes)
            do {
                guard let response = try parser.next() else { return }
                if response.headers.contains("Connection", token: "close") { self?.close() }
                finish(.success(response))
            } catch {
                self?.close()
                finish(.failure(.protocolViolation("malformed HTTP response (\(error))")))
            }
        }
        stream.onClose = { [weak self] error in
            guard let self else { return }
            self.stream = nil
            if let response = try? parser.finish() {
                finish(.success(response))
            } else if reused && !gotBytes {
                // The server closed an idle kept-alive connection: try once on a fresh one.
                self.connector.connect { result in
                    switch result {
                    case .failure(let error): finish(.failure(error))
                    case .success(let fresh):
                        self.stream = fresh
                        self.exchange(request, on: fresh, reused: false, finish)
                    }
                }
            } else {
                finish(.failure(.connectionLost(error?.reason ?? "the server closed the connection")))
            }
        }
        stream.write(request.serialized(host: connector.server.authority))
    }
}

import ChatClient
import Runtime

/// Opens a byte stream to the server: resolves the host, tries each address
/// in turn, and wraps the connection in TLS for `https://` servers.
public final class Connector {
    public let loop: EventLoop
    public let server: ServerURL
    /// `--ca-file`: also trusted for `turns:` relays.
    public let caFile: String?
    let tls: TLSContext?

    public init(loop: EventLoop, server: ServerURL, caFile: String?) throws(ClientError) {
        self.loop = loop
        self.server = server
        self.caFile = caFile
        if server.secure {
            do {
                tls = try TLSContext.client(caFile: caFile)
            } catch {
                throw .tls(server: server.description, reason: error.description)
            }
        } else {
            tls = nil
        }
    }

    /// Calls `completion` once, on the loop and always on a later turn:
    /// never from inside this call, so a caller that stops the loop on
    /// failure has always started it first. The name lookup runs off the
    /// loop, with its own deadline.
    public func connect(timeout: Duration = .seconds(10), _ completion: @escaping (Result<any ByteStream, ClientError>) -> Void) {
        Resolver.resolve(host: server.host, port: server.port, loop: loop) { [self] result in
            switch result {
            case .success(let addresses):
                attempt(addresses[...], lastError: nil, timeout: timeout, completion)
            case .failure(let error):
                completion(.failure(.unreachable(server: server.description, reason: error.reason)))
            }
        }
    }

    private func attempt(_ rest: ArraySlice<SocketAddress>, lastError: RuntimeError?, timeout: Duration,
                         _ completion: @escaping (Result<any ByteStream, ClientError>) -> Void) {
        guard let address = rest.first else {
            completion(.failure(.unreachable(server: server.description, reason: lastError?.reason ?? "no address")))
            return
        }
        let next: (RuntimeError) -> Void = { [self] error in
            attempt(rest.dropFirst(), lastError: error, timeout: timeout, completion)
        }
        guard let tls else {
            TCPConnection.connect(loop: loop, to: address, timeout: timeout) { result in
                switch result {
                case .failure(let error): next(error)
                case .success(let connection): completion(.success(connection))
                }
            }
            return
        }
        TLSStream.connect(loop: loop, to: address, serverName: server.host, context: tls, timeout: timeout) { [server] result in
            switch result {
            case .failure(let error) where error.kind == .tls:
                completion(.failure(.tls(server: server.description, reason: error.reason)))
            case .failure(let error): next(error)
            case .success(let stream): completion(.success(stream))
            }
        }
    }
}

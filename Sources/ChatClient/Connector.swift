import Runtime

/// Opens a byte stream to the server: resolves the host, tries each address
/// in turn, and wraps the connection in TLS for `https://` servers.
public final class Connector {
    public let loop: EventLoop
    public let server: ServerURL
    let tls: TLSContext?

    public init(loop: EventLoop, server: ServerURL, caFile: String?) throws(ClientError) {
        self.loop = loop
        self.server = server
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

    public func connect(timeout: Duration = .seconds(10), _ completion: @escaping (Result<any ByteStream, ClientError>) -> Void) {
        let addresses: [SocketAddress]
        do {
            addresses = try Resolver.resolve(host: server.host, port: server.port)
        } catch {
            completion(.failure(.unreachable(server: server.description, reason: error.reason)))
            return
        }
        attempt(addresses[...], lastError: nil, timeout: timeout, completion)
    }

    private func attempt(_ rest: ArraySlice<SocketAddress>, lastError: RuntimeError?, timeout: Duration,
                         _ completion: @escaping (Result<any ByteStream, ClientError>) -> Void) {
        guard let address = rest.first else {
            completion(.failure(.unreachable(server: server.description, reason: lastError?.reason ?? "no address")))
            return
        }
        TCPConnection.connect(loop: loop, to: address, timeout: timeout) { [self] result in
            switch result {
            case .failure(let error):
                attempt(rest.dropFirst(), lastError: error, timeout: timeout, completion)
            case .success(let connection):
                guard let tls else {
                    completion(.success(connection))
                    return
                }
                let stream = TLSStream(client: connection, context: tls, hostname: server.host)
                stream.onHandshake = { [server] error in
                    if let error {
                        completion(.failure(.tls(server: server.description, reason: error.reason)))
                    } else {
                        completion(.success(stream))
                    }
                }
                stream.startHandshake()
            }
        }
    }
}

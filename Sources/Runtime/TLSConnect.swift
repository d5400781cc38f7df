extension TLSStream {
    /// Connects over TCP and completes a TLS handshake, all within `timeout`.
    /// `completion` runs exactly once: with a stream ready for application
    /// data (set its `onData`/`onClose` there), or with the first error
    /// (refused, timed out, certificate rejected...).
    public static func connect(
        loop: EventLoop,
        to address: SocketAddress,
        serverName: String,
        context: TLSContext,
        timeout: Duration,
        completion: @escaping (Result<TLSStream, RuntimeError>) -> Void
    ) {
        let deadline = loop.now + timeout
        TCPConnection.connect(loop: loop, to: address, timeout: timeout) { result in
            let connection: TCPConnection
            switch result {
            case .failure(let error):
                completion(.failure(error))
                return
            case .success(let value):
                connection = value
            }
            let stream: TLSStream
            do throws(RuntimeError) {
                stream = try TLSStream(client: context, over: connection, serverName: serverName)
            } catch {
                connection.abort()
                completion(.failure(error))
                return
            }
            var finished = false
            let timer = loop.schedule(at: deadline) {
                guard !finished else { return }
                finished = true
                stream.onClose = nil
                stream.onHandshakeComplete = nil
                stream.abort()
                completion(.failure(.timedOut("TLS handshake with \(serverName)")))
            }
            stream.onHandshakeComplete = {
                guard !finished else { return }
                finished = true
                timer.cancel()
                stream.onClose = nil
                completion(.success(stream))
            }
            stream.onClose = { error in
                guard !finished else { return }
                finished = true
                timer.cancel()
                completion(.failure(error ?? .tls("connection closed during the handshake", "TLS handshake with \(serverName)")))
            }
        }
    }
}

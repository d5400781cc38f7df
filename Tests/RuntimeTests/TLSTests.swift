import Testing
import TestSupport
@testable import Runtime

@Suite(.computeThread) struct TLSTests {
    /// A TLS echo server on 127.0.0.1 using `certificates`; reports server-side closes.
    private final class EchoServer {
        let listener: TCPListener
        var serverErrors: [RuntimeError?] = []

        init(loop: EventLoop, certificates: TestCertificates) throws {
            let context = try TLSContext.server(certFile: certificates.certFile, keyFile: certificates.keyFile)
            listener = try TCPListener(loop: loop, address: try Fixture.address("127.0.0.1:0"))
            listener.onAccept = { [unowned self] connection in
                guard let stream = try? TLSStream(server: context, over: connection) else { return connection.abort() }
                stream.onData = { [unowned stream] bytes in stream.write(bytes) }
                stream.onClose = { [unowned self] error in self.serverErrors.append(error) }
            }
        }
    }

    /// Connects with `caFile` as trust anchor to `serverName`; returns echoed bytes or the error.
    private func exchange(
        certificates: TestCertificates, caFile: String, serverName: String, payload: [UInt8]
    ) throws -> (Result<[UInt8], RuntimeError>, serverErrors: [RuntimeError?]) {
        let loop = try EventLoop()
        let server = try EchoServer(loop: loop, certificates: certificates)
        defer { server.listener.close() }
        let context = try TLSContext.client(caFile: caFile)
        var outcome: Result<[UInt8], RuntimeError>?
        TLSStream.connect(loop: loop, to: server.listener.localAddress, serverName: serverName,
                          context: context, timeout: .seconds(10)) { result in
            switch result {
            case .failure(let error):
                outcome = .failure(error)
                // Let the server see the alert before stopping.
                loop.schedule(after: .milliseconds(50)) { loop.stop() }
            case .success(let stream):
                #expect(stream.isHandshakeComplete)
                var received: [UInt8] = []
                stream.onData = { bytes in
                    received += bytes
                    if received.count >= payload.count { stream.close() }
                }
                stream.onClose = { error in
                    outcome = error.map { .failure($0) } ?? .success(received)
                    loop.schedule(after: .milliseconds(20)) { loop.stop() }
                }
                stream.write(payload)
            }
        }
        #expect(loop.run(timeout: .seconds(20)))
        return (try #require(outcome), server.serverErrors)
    }

    @Test func clientAndServerExchangeDataOverLoopback() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let certificates = try TestCertificates.make(in: directory.path)
        let payload = Fixture.bytes(count: 3 * 1024 * 1024 + 17)
        let (result, serverErrors) = try exchange(certificates: certificates, caFile: certificates.caFile,
                                                  serverName: "localhost", payload: payload)
        #expect(try result.get() == payload)
        #expect(serverErrors.count == 1)
        #expect(serverErrors.first.flatMap { $0 } == nil)
    }

    @Test func serverIPAddressIsVerifiedAgainstIPSubjectAltNames() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let certificates = try TestCertificates.make(in: directory.path)
        let (result, _) = try exchange(certificates: certificates, caFile: certificates.caFile,
                                       serverName: "127.0.0.1", payload: Array("ip".utf8))
        #expect(try result.get() == Array("ip".utf8))
    }

    @Test func hostnameMismatchIsRejected() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let certificates = try TestCertificates.make(in: directory.path)
        let (result, serverErrors) = try exchange(certificates: certificates, caFile: certificates.caFile,
                                                  serverName: "example.com", payload: [1])
        guard case .failure(let error) = result else {
            Issue.record("handshake with the wrong name succeeded")
            return
        }
        #expect(error.kind == .tls)
        #expect(error.description == "TLS handshake with example.com: certificate verify failed: hostname mismatch")
        // The server learns why from the client's alert.
        #expect(serverErrors.count == 1)
        #expect(serverErrors.first??.kind == .tls)
    }

    @Test func unknownCertificateAuthorityIsRejected() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let other = try TemporaryDirectory()
        defer { other.remove() }
        let certificates = try TestCertificates.make(in: directory.path)
        let stranger = try TestCertificates.make(in: other.path)
        let (result, serverErrors) = try exchange(certificates: certificates, caFile: stranger.caFile,
                                                  serverName: "localhost", payload: [1])
        guard case .failure(let error) = result else {
            Issue.record("handshake with an unknown CA succeeded")
            return
        }
        #expect(error.kind == .tls)
        #expect(error.description.hasPrefix("TLS handshake with localhost: certificate verify failed: "))
        #expect(error.reason.contains("issuer"))
        #expect(serverErrors.first??.reason.contains("unknown ca") == true)
    }

    @Test func missingOrInvalidServerFilesAreClearErrors() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let certificates = try TestCertificates.make(in: directory.path)
        #expect {
            try TLSContext.server(certFile: directory.file("absent.pem"), keyFile: certificates.keyFile)
        } throws: { error in
            (error as? RuntimeError)?.description == "certificate file \(directory.file("absent.pem")): no such file"
        }
        #expect {
            try TLSContext.server(certFile: certificates.keyFile, keyFile: certificates.keyFile)
        } throws: { error in
            (error as? RuntimeError)?.reason.hasPrefix("not a valid PEM certificate") == true
        }
        let stranger = try TemporaryDirectory()
        defer { stranger.remove() }
        let otherKey = try TestCertificates.make(in: stranger.path).keyFile
        #expect {
            try TLSContext.server(certFile: certificates.certFile, keyFile: otherKey)
        } throws: { error in
            (error as? RuntimeError)?.reason == "the private key does not match the certificate"
        }
        #expect(throws: RuntimeError.self) { try TLSContext.client(caFile: directory.file("none.pem")) }
        _ = try TLSContext.client(caFile: nil)  // the system store loads
    }

    @Test func handshakeTimesOutAgainstASilentServer() throws {
        let loop = try EventLoop()
        // Accepts TCP but never speaks TLS.
        let silent = try TCPListener(loop: loop, address: try Fixture.address("127.0.0.1:0"))
        var held: [TCPConnection] = []
        silent.onAccept = { held.append($0) }
        defer {
            silent.close()
            for connection in held { connection.abort() }
        }
        var outcome: RuntimeError?
        TLSStream.connect(loop: loop, to: silent.localAddress, serverName: "localhost",
                          context: try TLSContext.client(caFile: nil), timeout: .milliseconds(100)) { result in
            if case .failure(let error) = result { outcome = error }
            loop.stop()
        }
        #expect(loop.run(timeout: .seconds(5)))
        #expect(outcome?.kind == .timedOut)
        #expect(outcome?.description == "TLS handshake with localhost: timed out")
    }

    @Test func plaintextClientIsRejectedByTheServer() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let certificates = try TestCertificates.make(in: directory.path)
        let loop = try EventLoop()
        let server = try EchoServer(loop: loop, certificates: certificates)
        defer { server.listener.close() }
        TCPConnection.connect(loop: loop, to: server.listener.localAddress, timeout: .seconds(5)) { result in
            guard case .success(let connection) = result else { return loop.stop() }
            connection.onClose = { _ in loop.schedule(after: .milliseconds(20)) { loop.stop() } }
            connection.write(Array("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
        }
        #expect(loop.run(timeout: .seconds(5)))
        let error = try #require(server.serverErrors.first ?? nil)
        #expect(error.kind == .tls)
        #expect(error.description.hasPrefix("TLS handshake with client: "))
    }
}

import Testing
import TestSupport
@testable import Runtime

/// Over TLS the owner sees the same back-pressure as over TCP: pausing
/// reads pauses the transport, and the drain of the ciphertext is reported.
@Suite struct TLSBackPressureTests {
    @Test func aPausedTLSReaderBacksTheWriterUpAndItsDrainIsReported() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let certificates = try TestCertificates.make(in: directory.path)
        let loop = try EventLoop()
        let serverContext = try TLSContext.server(certFile: certificates.certFile, keyFile: certificates.keyFile)
        let listener = try TCPListener(loop: loop, address: try Fixture.address("127.0.0.1:0"))
        defer { listener.close() }
        var server: TLSStream?
        var drained = 0
        var backedUp = 0
        var client: TLSStream?
        // The client asks; the server answers with a flood until its output waits.
        listener.onAccept = { connection in
            guard let stream = try? TLSStream(server: serverContext, over: connection) else { return connection.abort() }
            server = stream
            stream.onData = { [unowned stream] _ in
                let chunk = [UInt8](repeating: 0x63, count: 64 * 1024)
                var writes = 0
                while stream.bufferedAmount == 0 && writes < 10_000 {
                    stream.write(chunk)
                    writes += 1
                }
                backedUp = stream.bufferedAmount
                stream.onDrain = {
                    drained += 1
                    loop.stop()
                }
                client?.onData = { _ in }
                client?.isReadingPaused = false
            }
        }
        TLSStream.connect(loop: loop, to: listener.localAddress, serverName: "localhost",
                          context: try TLSContext.client(caFile: certificates.caFile), timeout: .seconds(10)) { result in
            guard case .success(let stream) = result else { return loop.stop() }
            client = stream
            stream.isReadingPaused = true
            #expect((stream.transport as? TCPConnection)?.isReadingPaused == true)
            stream.write(Array("flood me".utf8))
        }
        #expect(loop.run(timeout: .seconds(20)))
        #expect(backedUp > 0)
        #expect(drained == 1)
        #expect(server?.bufferedAmount == 0)
        client?.abort()
        server?.abort()
    }
}

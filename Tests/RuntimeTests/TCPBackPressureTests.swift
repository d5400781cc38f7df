import Glibc
import Testing
@testable import Runtime

/// Output to a peer that does not read: capped, counted on the loop, and
/// reported when it drains, so an owner can stop producing in time.
@Suite struct TCPBackPressureTests {
    /// A listener whose accepted connection is handed to `accepted`, and a
    /// client that connects and never reads (its reading paused).
    private func pairWithSilentClient(_ loop: EventLoop, accepted: @escaping (TCPConnection, TCPConnection) -> Void) throws -> TCPListener {
        let listener = try TCPListener(loop: loop, address: try Fixture.address("127.0.0.1:0"))
        var client: TCPConnection?
        listener.onAccept = { server in
            // The client's connect completes first or soon after; wait for both.
            func ready() {
                guard let client else { return loop.execute { ready() } }
                accepted(server, client)
            }
            ready()
        }
        TCPConnection.connect(loop: loop, to: listener.localAddress, timeout: .seconds(5)) { result in
            guard case .success(let connection) = result else { return loop.stop() }
            connection.isReadingPaused = true
            client = connection
        }
        return listener
    }

    @Test func writingPastTheOutputLimitClosesWithAnErrorInsteadOfGrowing() throws {
        let loop = try EventLoop()
        var closedWith: RuntimeError?
        var writes = 0
        var peer: TCPConnection?
        let listener = try pairWithSilentClient(loop) { server, client in
            peer = client
            server.outputLimit = 256 * 1024
            server.onClose = { error in
                closedWith = error
                loop.stop()
            }
            let chunk = [UInt8](repeating: 0x61, count: 64 * 1024)
            // The kernel takes a few MB first; then the cap must end it.
            while server.isOpen && writes < 100_000 {
                server.write(chunk)
                writes += 1
                #expect(server.bufferedAmount <= 256 * 1024)
            }
        }
        defer { listener.close() }
        #expect(loop.run(timeout: .seconds(10)))
        let error = try #require(closedWith)
        #expect(error.errno == ENOBUFS)
        #expect(error.reason.contains("the peer is not reading"), "\(error)")
        #expect(writes < 100_000, "closed long before writing 6 GB")
        #expect(loop.bufferedOutputBytes == 0, "a closed connection holds nothing")
        peer?.abort()
    }

    @Test func drainIsReportedAndTheLoopCountsWhatWaits() throws {
        let loop = try EventLoop()
        var drained = 0
        var countedWhileBacked = 0
        var bufferedWhileBacked = 0
        var peer: TCPConnection?
        let listener = try pairWithSilentClient(loop) { server, client in
            peer = client
            let chunk = [UInt8](repeating: 0x62, count: 64 * 1024)
            var writes = 0
            while server.bufferedAmount == 0 && writes < 10_000 {
                server.write(chunk)
                writes += 1
            }
            bufferedWhileBacked = server.bufferedAmount
            countedWhileBacked = loop.bufferedOutputBytes
            server.onDrain = {
                drained += 1
                #expect(server.bufferedAmount == 0)
                loop.stop()
            }
            // The client reads (and drops) everything from now on.
            client.onData = { _ in }
            client.isReadingPaused = false
        }
        defer { listener.close() }
        #expect(loop.run(timeout: .seconds(10)))
        #expect(bufferedWhileBacked > 0)
        #expect(countedWhileBacked == bufferedWhileBacked)
        #expect(drained == 1)
        #expect(loop.bufferedOutputBytes == 0)
        peer?.abort()
    }
}

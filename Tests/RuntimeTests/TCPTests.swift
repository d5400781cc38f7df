import Glibc
import Testing
import TestSupport
@testable import Runtime

@Suite(.computeThread) struct TCPTests {
    /// Connects to an echo server at `server`, sends `payload`, waits for it back.
    private func echoRoundTrip(server: String, connectTo: String, payload: [UInt8]) throws -> [UInt8] {
        let loop = try EventLoop()
        let listener = try Fixture.echoServer(loop: loop, at: server)
        defer { listener.close() }
        let target = try Fixture.address(connectTo).with(port: listener.localAddress.port)
        var received: [UInt8] = []
        var failure: RuntimeError?
        TCPConnection.connect(loop: loop, to: target, timeout: .seconds(5)) { result in
            switch result {
            case .failure(let error):
                failure = error
                loop.stop()
            case .success(let connection):
                #expect(connection.remoteAddress == target)
                connection.onData = { bytes in
                    received += bytes
                    if received.count >= payload.count { connection.close() }
                }
                connection.onClose = { _ in loop.stop() }
                connection.write(payload)
            }
        }
        #expect(loop.run(timeout: .seconds(20)))
        #expect(failure == nil)
        return received
    }

    @Test func echoOverIPv4Loopback() throws {
        let payload = Array("hello over IPv4".utf8)
        #expect(try echoRoundTrip(server: "127.0.0.1:0", connectTo: "127.0.0.1:0", payload: payload) == payload)
    }

    @Test(.enabled(if: ipv6Available, "IPv6 loopback unavailable on this machine"))
    func echoOverIPv6Loopback() throws {
        let payload = Array("hello over IPv6".utf8)
        #expect(try echoRoundTrip(server: "[::1]:0", connectTo: "[::1]:0", payload: payload) == payload)
    }

    @Test(.enabled(if: ipv6Available, "IPv6 unavailable on this machine"))
    func dualStackListenerAcceptsIPv4() throws {
        let payload = Array("v4 into ::".utf8)
        #expect(try echoRoundTrip(server: "[::]:0", connectTo: "127.0.0.1:0", payload: payload) == payload)
    }

    @Test func largeWritesArriveIntactDespitePartialWrites() throws {
        let payload = Fixture.bytes(count: 8 * 1024 * 1024)
        let loop = try EventLoop()
        let listener = try TCPListener(loop: loop, address: try Fixture.address("127.0.0.1:0"))
        defer { listener.close() }
        var received: [UInt8] = []
        received.reserveCapacity(payload.count)
        var sawBuffering = false
        listener.onAccept = { connection in
            connection.onData = { bytes in
                received += bytes
                if received.count >= payload.count { loop.stop() }
            }
        }
        TCPConnection.connect(loop: loop, to: listener.localAddress, timeout: .seconds(5)) { result in
            guard case .success(let connection) = result else { return loop.stop() }
            // Many writes of odd sizes exercise appending to a partly sent buffer.
            var offset = 0
            var size = 1
            while offset < payload.count {
                let end = min(payload.count, offset + size)
                connection.write(Array(payload[offset..<end]))
                offset = end
                size = size * 7 % 300_007 + 1
            }
            sawBuffering = connection.bufferedAmount > 0
            connection.close()  // must still deliver everything queued
        }
        #expect(loop.run(timeout: .seconds(30)))
        #expect(sawBuffering)
        #expect(received.count == payload.count)
        #expect(received == payload)
    }

    @Test func peerCloseDeliversOnCloseExactlyOnce() throws {
        let loop = try EventLoop()
        let listener = try TCPListener(loop: loop, address: try Fixture.address("127.0.0.1:0"))
        defer { listener.close() }
        listener.onAccept = { connection in
            connection.write(Array("bye".utf8))
            connection.close()
        }
        var received: [UInt8] = []
        var closes: [RuntimeError?] = []
        TCPConnection.connect(loop: loop, to: listener.localAddress, timeout: .seconds(5)) { result in
            guard case .success(let connection) = result else { return loop.stop() }
            connection.onData = { received += $0 }
            connection.onClose = { error in
                closes.append(error)
                connection.close()
                connection.abort()
                connection.write([1])
                // Give any (wrong) second callback a chance to show up.
                loop.schedule(after: .milliseconds(20)) { loop.stop() }
            }
        }
        #expect(loop.run(timeout: .seconds(5)))
        #expect(received == Array("bye".utf8))
        #expect(closes.count == 1)
        #expect(closes.first.flatMap { $0 } == nil)
    }

    @Test func closingFromItsOwnDataCallbackIsSafe() throws {
        let loop = try EventLoop()
        let listener = try TCPListener(loop: loop, address: try Fixture.address("127.0.0.1:0"))
        defer { listener.close() }
        var serverData = 0
        var serverCloses = 0
        listener.onAccept = { connection in
            connection.onData = { [unowned connection] _ in
                serverData += 1
                connection.write(Array("ok".utf8))
                connection.close()
                connection.close()
                connection.write(Array("ignored".utf8))
            }
            connection.onClose = { _ in serverCloses += 1 }
        }
        var reply: [UInt8] = []
        TCPConnection.connect(loop: loop, to: listener.localAddress, timeout: .seconds(5)) { result in
            guard case .success(let connection) = result else { return loop.stop() }
            connection.onData = { reply += $0 }
            connection.onClose = { _ in loop.schedule(after: .milliseconds(20)) { loop.stop() } }
            connection.write(Array("first".utf8))
            connection.write(Array("second".utf8))
        }
        #expect(loop.run(timeout: .seconds(5)))
        #expect(reply == Array("ok".utf8))
        #expect(serverData == 1)
        #expect(serverCloses == 1)
    }

    @Test func connectToClosedPortFailsFastWithConnectionRefused() throws {
        let loop = try EventLoop()
        let port = try Fixture.closedPort(loop: loop)
        let target = try Fixture.address("127.0.0.1:\(port)")
        var outcome: RuntimeError?
        TCPConnection.connect(loop: loop, to: target, timeout: .seconds(10)) { result in
            if case .failure(let error) = result { outcome = error }
            loop.stop()
        }
        #expect(loop.run(timeout: .seconds(5)))
        let error = try #require(outcome)
        #expect(error.errno == ECONNREFUSED)
        #expect(error.description == "connect to 127.0.0.1:\(port): connection refused")
    }

    @Test func connectTimesOutWhenTheListenQueueIsFull() throws {
        let loop = try EventLoop()
        // A listener that never accepts, with the smallest queue: once it is
        // full the kernel drops further SYNs, so the next connect hangs.
        let address = try Fixture.address("127.0.0.1:0")
        let fd = try Socket.make(for: address, type: Int32(SOCK_STREAM.rawValue))
        defer { close(fd) }
        try Socket.bind(fd, address)
        #expect(listen(fd, 0) == 0)
        let target = try #require(Socket.localAddress(fd))
        var connections: [TCPConnection] = []
        var outcome: RuntimeError?
        var attempts = 0
        func attempt() {
            attempts += 1
            TCPConnection.connect(loop: loop, to: target, timeout: .milliseconds(150)) { result in
                switch result {
                case .success(let connection):
                    connections.append(connection)
                    if attempts < 8 { attempt() } else { loop.stop() }
                case .failure(let error):
                    outcome = error
                    loop.stop()
                }
            }
        }
        attempt()
        #expect(loop.run(timeout: .seconds(10)))
        let error = try #require(outcome)
        #expect(error.kind == .timedOut)
        #expect(error.description == "connect to \(target): timed out")
        for connection in connections { connection.abort() }
    }

    @Test func serverHandlesAThousandConcurrentConnections() throws {
        let loop = try EventLoop()
        let listener = try Fixture.echoServer(loop: loop, at: "127.0.0.1:0")
        defer { listener.close() }
        let total = 1_000
        var echoed = 0
        var clients: [TCPConnection] = []
        for index in 0..<total {
            TCPConnection.connect(loop: loop, to: listener.localAddress, timeout: .seconds(10)) { result in
                guard case .success(let connection) = result else { return loop.stop() }
                clients.append(connection)
                let message = Array("client \(index)".utf8)
                connection.onData = { bytes in
                    if bytes == message { echoed += 1 }
                    if echoed == total { loop.stop() }
                }
                connection.write(message)
            }
        }
        #expect(loop.run(timeout: .seconds(30)))
        #expect(echoed == total)
        for client in clients { client.abort() }
    }
}

@Suite struct TCPFlowControlTests {
    @Test func pausedReadingDeliversNothingUntilResumed() throws {
        let loop = try EventLoop()
        let listener = try TCPListener(loop: loop, address: try Fixture.address("127.0.0.1:0"))
        defer { listener.close() }
        var received: [UInt8] = []
        var deliveredWhilePaused = false
        listener.onAccept = { connection in
            connection.isReadingPaused = true
            connection.onData = { bytes in
                if connection.isReadingPaused { deliveredWhilePaused = true }
                received += bytes
                if received.count == 5 { connection.close() }
            }
            connection.onClose = { _ in loop.stop() }
            loop.schedule(after: .milliseconds(30)) {
                #expect(received.isEmpty)
                connection.isReadingPaused = false
            }
        }
        var client: TCPConnection?
        TCPConnection.connect(loop: loop, to: listener.localAddress, timeout: .seconds(5)) { result in
            client = try? result.get()
            client?.write(Array("hello".utf8))
        }
        #expect(loop.run(timeout: .seconds(5)))
        #expect(!deliveredWhilePaused)
        #expect(received == Array("hello".utf8))
        client?.abort()
    }
}

import Testing
import TestSupport
@testable import Runtime

@Suite struct UDPTests {
    /// Sends datagrams from `client` to an echoing `server` and collects the echoes.
    private func roundTrip(server: String, client: String, target: String, datagrams: [[UInt8]]) throws -> [[UInt8]] {
        let loop = try EventLoop()
        let echo = try UDPSocket(loop: loop, bind: try Fixture.address(server))
        let sender = try UDPSocket(loop: loop, bind: try Fixture.address(client))
        defer {
            echo.close()
            sender.close()
        }
        echo.onDatagram = { [unowned echo] bytes, from in echo.send(bytes, to: from) }
        let destination = try Fixture.address(target).with(port: echo.localAddress.port)
        var received: [[UInt8]] = []
        sender.onDatagram = { bytes, from in
            #expect(from == destination)
            received.append(bytes)
            if received.count == datagrams.count { loop.stop() }
        }
        for datagram in datagrams { sender.send(datagram, to: destination) }
        #expect(loop.run(timeout: .seconds(5)))
        return received
    }

    @Test func roundTripOverIPv4() throws {
        let datagrams = (0..<20).map { Fixture.bytes(count: 1 + $0 * 61, seed: UInt64($0 + 1)) }
        let echoed = try roundTrip(server: "127.0.0.1:0", client: "127.0.0.1:0", target: "127.0.0.1:0", datagrams: datagrams)
        // Loopback neither drops nor reorders at this rate.
        #expect(echoed == datagrams)
    }

    @Test(.enabled(if: ipv6Available, "IPv6 loopback unavailable on this machine"))
    func roundTripOverIPv6() throws {
        let datagrams = [Array("ping".utf8), [], Fixture.bytes(count: 1200)]
        #expect(try roundTrip(server: "[::1]:0", client: "[::1]:0", target: "[::1]:0", datagrams: datagrams) == datagrams)
    }

    @Test(.enabled(if: ipv6Available, "IPv6 unavailable on this machine"))
    func dualStackSocketTalksToIPv4PeersWithIPv4Addresses() throws {
        let datagrams = [Array("mapped".utf8)]
        // The echo server on [::]:0 sees 127.0.0.1 (not ::ffff:127.0.0.1) and answers it.
        #expect(try roundTrip(server: "[::]:0", client: "127.0.0.1:0", target: "127.0.0.1:0", datagrams: datagrams) == datagrams)
    }

    @Test func largeDatagramsArriveWhole() throws {
        let datagrams = [Fixture.bytes(count: 60_000)]
        #expect(try roundTrip(server: "127.0.0.1:0", client: "127.0.0.1:0", target: "127.0.0.1:0", datagrams: datagrams) == datagrams)
    }

    @Test func bindingABusyPortIsAClearError() throws {
        let loop = try EventLoop()
        let first = try UDPSocket(loop: loop, bind: try Fixture.address("127.0.0.1:0"))
        defer { first.close() }
        #expect {
            try UDPSocket(loop: loop, bind: first.localAddress)
        } throws: { error in
            (error as? RuntimeError)?.description == "bind \(first.localAddress): address already in use"
        }
    }
}

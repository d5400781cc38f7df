import Runtime
import STUN
import Testing
import TestSupport
import TURN

/// Our client against a real coturn on loopback: allocation over UDP and
/// TCP, data both ways through the relay with Send/Data indications and
/// with ChannelData, refreshes, and deallocation.
@Suite(.enabled(if: Coturn.isInstalled, "coturn's turnserver is not installed (apt install coturn; Tools/test installs it): TURN interop tests skipped"))
struct CoturnInteropTests {
    @Test(arguments: [TURNTransport.udp, .tcp])
    func relaysDataBothWaysThroughCoturn(transport: TURNTransport) throws {
        let coturn = try Coturn()
        defer { coturn.stop() }
        let loop = try EventLoop()
        let peer = try UDPSocket(loop: loop, bind: try #require(SocketAddress(ip: "127.0.0.1", port: 0)))
        let peerAddress = try #require(STUNAddress(peer.localAddress))
        let (username, password) = coturn.credentials()
        let live = try LiveClient(
            loop: loop, server: try #require(SocketAddress(ip: "127.0.0.1", port: coturn.port)),
            transport: transport, username: username, password: password)
        defer {
            live.close()
            peer.close()
        }
        var atPeer: [(bytes: [UInt8], from: SocketAddress)] = []
        peer.onDatagram = { bytes, from in
            atPeer.append((bytes, from))
            live.poke()
        }
        func fail(_ what: String) -> Comment { "\(what); events: \(live.events)\n\(coturn.logTail)" }

        // Allocate: 401 challenge, then the relayed address on loopback.
        guard live.run(until: { live.client.isAllocated || live.client.isClosed }), live.client.isAllocated else {
            Issue.record(fail("no allocation"))
            return
        }
        let relayed = try #require(live.client.relayedAddress)
        #expect(relayed.ip == [127, 0, 0, 1])
        #expect(coturn.relayPorts.contains(relayed.port))
        #expect(live.client.mappedAddress?.ip == [127, 0, 0, 1])
        let relayedSocket = try #require(relayed.socketAddress)

        // Client → peer before any channel: CreatePermission, Send indication.
        live.client.send(Array("hello".utf8), to: peerAddress, now: live.now)
        live.flush()
        #expect(live.run { atPeer.contains { $0.bytes == Array("hello".utf8) } }, fail("peer got no Send-indication data"))
        #expect(atPeer.first?.from == relayedSocket)
        #expect(live.hasEvent { $0 == .permissionCreated(peerAddress) })

        // Peer → client: a Data indication.
        peer.send(Array("pong".utf8), to: relayedSocket)
        #expect(live.run { live.hasEvent { $0 == .data(from: peerAddress, Array("pong".utf8)) } }, fail("no Data indication"))

        // ChannelBind, then ChannelData both ways.
        let number = try #require(live.client.bindChannel(to: peerAddress, now: live.now))
        live.flush()
        #expect(live.run { live.hasEvent { $0 == .channelBound(peerAddress, number: number) } }, fail("no channel bound"))
        let odd = Array("over the channel!".utf8)   // 17 bytes: padded over TCP
        live.client.send(odd, to: peerAddress, now: live.now)
        live.flush()
        #expect(live.run { atPeer.contains { $0.bytes == odd } }, fail("peer got no ChannelData"))
        #expect(live.channelDataSent == 1)
        peer.send(Array("channel back".utf8), to: relayedSocket)
        #expect(live.run { live.hasEvent { $0 == .data(from: peerAddress, Array("channel back".utf8)) } }, fail("no ChannelData from peer"))

        // Jump the client's clock to the refresh deadlines: the allocation,
        // permission and channel refreshes all go to coturn and succeed.
        live.warp = .seconds(545)
        live.client.handleTimeout(now: live.now)
        live.flush()
        #expect(live.run { live.hasEvent { $0 == .refreshed(lifetime: .seconds(600)) } }, fail("no refresh"))
        #expect(live.client.isAllocated)
        let late = Array("after refresh".utf8)
        peer.send(late, to: relayedSocket)
        #expect(live.run { live.hasEvent { $0 == .data(from: peerAddress, late) } }, fail("no data after refresh"))
        live.client.send(late, to: peerAddress, now: live.now)
        live.flush()
        #expect(live.run { atPeer.contains { $0.bytes == late } }, fail("peer got nothing after refresh"))
        #expect(!live.hasEvent { if case .failed = $0 { true } else { false } })
        #expect(!live.hasEvent { if case .channelBindFailed = $0 { true } else { false } })
        #expect(!live.hasEvent { if case .permissionFailed = $0 { true } else { false } })

        // Deallocate: Refresh with LIFETIME 0.
        live.client.deallocate(now: live.now)
        live.flush()
        #expect(live.run { live.hasEvent { $0 == .deallocated } }, fail("no deallocation"))
    }

    @Test func wrongCredentialsAreReportedClearly() throws {
        let coturn = try Coturn()
        defer { coturn.stop() }
        let loop = try EventLoop()
        let (username, _) = coturn.credentials()
        let live = try LiveClient(
            loop: loop, server: try #require(SocketAddress(ip: "127.0.0.1", port: coturn.port)),
            transport: .udp, username: username, password: "not-the-hmac")
        defer { live.close() }
        #expect(live.run { live.client.isClosed }, "\(live.events)\n\(coturn.logTail)")
        #expect(live.events.count == 1)
        guard case .failed(.rejected(.allocate, 401, _)) = live.events.first else {
            Issue.record("expected a 401 rejection, got \(live.events)")
            return
        }
    }
}
